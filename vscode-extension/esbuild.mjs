// Bundles the extension (and, with --tests, the unit tests) with esbuild.
//
// `npm run build` writes dist/extension.js and copies the frontmatter JSON
// Schema from the Python package, its one source, into schema/.
// `--tests` writes one bundle per test file to out-test/, with the `vscode`
// module replaced by a stub, so the tests run under plain `node --test`.
import { build } from "esbuild";
import { copyFileSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const common = { bundle: true, platform: "node", target: "node20", format: "cjs", sourcemap: true, logLevel: "warning" };

const SCHEMA_SOURCE = join(here, "..", "store", "schema", "memory-frontmatter.schema.json");
const SCHEMA_COPY = join(here, "schema", "memory-frontmatter.schema.json");

if (process.argv.includes("--tests")) {
  rmSync(join(here, "out-test"), { recursive: true, force: true });
  const tests = readdirSync(join(here, "test")).filter((f) => f.endsWith(".test.ts"));
  await build({
    ...common,
    entryPoints: tests.map((f) => join(here, "test", f)),
    outdir: join(here, "out-test"),
    alias: { vscode: join(here, "test", "stubs", "vscode.ts") },
  });
} else {
  await build({ ...common, entryPoints: [join(here, "src", "extension.ts")], outfile: join(here, "dist", "extension.js"), external: ["vscode"], minify: true });
  mkdirSync(dirname(SCHEMA_COPY), { recursive: true });
  copyFileSync(SCHEMA_SOURCE, SCHEMA_COPY);
}
