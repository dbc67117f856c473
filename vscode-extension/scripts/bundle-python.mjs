// Fills bundled/libs with memls and the pure-Python libraries it needs, the
// layout of Microsoft's Python tools extension template: the extension then
// runs on any Python 3.10+ with nothing installed (`python3 -S` works).
//
// The Python running pip is $MEMLS_PYTHON, else python3.
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = join(dirname(fileURLToPath(import.meta.url)), "..");
const repo = join(here, "..");
const libs = join(here, "bundled", "libs");
const python = process.env.MEMLS_PYTHON || "python3";
const pip = (...args) =>
  execFileSync(python, ["-m", "pip", "install", "--disable-pip-version-check", "--quiet", "--no-deps", ...args], { stdio: "inherit" });

const requirements = readFileSync(join(here, "bundled-requirements.txt"), "utf8")
  .split("\n")
  .map((line) => line.replace(/#.*/, "").trim())
  .filter(Boolean);
const isPyYaml = (req) => /^pyyaml\b/i.test(req);

rmSync(libs, { recursive: true, force: true });
mkdirSync(libs, { recursive: true });

// Pure-Python wheels, chosen for the oldest Python memls supports.
pip("--target", libs, "--only-binary=:all:", "--implementation", "py", "--python-version", "3.10",
  ...requirements.filter((r) => !isPyYaml(r)));

// PyYAML: this platform's wheel, without its compiled libyaml binding.
const yamlTmp = mkdtempSync(join(tmpdir(), "memls-pyyaml-"));
try {
  pip("--target", yamlTmp, ...requirements.filter(isPyYaml));
  for (const entry of readdirSync(yamlTmp)) {
    if (entry === "yaml" || /^PyYAML-.*\.dist-info$/i.test(entry)) {
      cpSync(join(yamlTmp, entry), join(libs, entry), {
        recursive: true,
        filter: (src) => !/\.(so|pyd)$/.test(src) && !src.endsWith("RECORD") && !src.includes("__pycache__"),
      });
    }
  }
} finally {
  rmSync(yamlTmp, { recursive: true, force: true });
}

// memls itself: the same wheel `pip install memls` installs (one package, memls,
// with memls.store and memls.lsp mapped in by pyproject.toml), metadata included,
// so `importlib.metadata.version("memls")` answers as it does when installed.
pip("--target", libs, repo);
const distInfo = readdirSync(libs).find((entry) => /^memls-.*\.dist-info$/.test(entry));
if (!distInfo) {
  throw new Error("pip installed no memls dist-info into bundled/libs");
}
const version = /^memls-(.*)\.dist-info$/.exec(distInfo)[1];
rmSync(join(libs, "bin"), { recursive: true, force: true });

// Leave no bytecode for one Python version behind; every Python compiles its own.
const dropBytecode = (dir) => {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) {
      entry.name === "__pycache__" ? rmSync(full, { recursive: true, force: true }) : dropBytecode(full);
    }
  }
};
dropBytecode(libs);
console.log(`bundled/libs: memls ${version} and ${requirements.length} libraries`);
