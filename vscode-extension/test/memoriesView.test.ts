import assert from "node:assert/strict";
import { ChildProcess, spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, test } from "node:test";
import { pathToFileURL } from "node:url";
import { createMessageConnection, MessageConnection, StreamMessageReader, StreamMessageWriter } from "vscode-jsonrpc/node";
import { itemLook, readMemories } from "../src/memoriesTree";
import { MEMORIES_CHANGED, MEMORIES_REQUEST, MemoriesTreeProvider } from "../src/memoriesView";

// The tree provider against the real server of this checkout (`python -m
// memls.lsp` over stdio), not the bundled copy: bundled/libs is rebuilt only
// when the package is, after these tests, so it may hold an older server.
const EXTENSION = path.resolve(__dirname, "..");

function python(): string | undefined {
  const candidates = [process.env.MEMLS_TEST_PYTHON, path.join(EXTENSION, "..", ".venv", "bin", "python"), "python3"];
  return candidates.find((p) => p && spawnSync(p, ["-c", "import memls.lsp"]).status === 0);
}

const PYTHON = python();
const NO_SERVER = PYTHON ? undefined : "no Python with memls installed (set MEMLS_TEST_PYTHON)";
if (NO_SERVER) {
  console.log(`# skipping the Memories view tests against the server: ${NO_SERVER}`);
}

const entry = (name: string, extra = "", type = "project") =>
  `---\nname: ${name}\ndescription: "about ${name}"\nmetadata:\n  type: ${type}\n${extra}---\n\nbody\n`;

let workspace: string;
let root: string;
let server: ChildProcess;
let connection: MessageConnection;
let changes = 0;

before(async () => {
  if (NO_SERVER) {
    return;
  }
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), "memls-view-"));
  root = path.join(workspace, "memory");
  fs.mkdirSync(root);
  fs.writeFileSync(path.join(root, "new.md"), entry("new", "supersedes:\n  - old\n"));
  fs.writeFileSync(path.join(root, "old.md"), entry("old", "status: superseded\nsuperseded_by: new\n"));
  fs.writeFileSync(path.join(root, "me.md"), entry("me", "", "user"));
  fs.writeFileSync(path.join(root, "lost.md"), entry("lost", "supersedes:\n  - nothing\n"));
  server = spawn(PYTHON!, ["-m", "memls.lsp"], { env: { ...process.env, MEMLS_MEMORY_DIRS: "", GPTME_MEMORY_DIRS: "" }, stdio: ["pipe", "pipe", "inherit"] });
  connection = createMessageConnection(new StreamMessageReader(server.stdout!), new StreamMessageWriter(server.stdin!));
  connection.onNotification(MEMORIES_CHANGED, () => {
    changes++;
  });
  connection.onRequest(() => null); // registrations, progress tokens: accepted
  connection.listen();
  await connection.sendRequest("initialize", {
    processId: process.pid,
    rootUri: pathToFileURL(workspace).toString(),
    workspaceFolders: [{ uri: pathToFileURL(workspace).toString(), name: "workspace" }],
    capabilities: { window: { workDoneProgress: true } },
    initializationOptions: { settings: {}, client: { markdownOutline: true, memoriesView: true } },
  });
  await connection.sendNotification("initialized", {});
  for (let i = 0; i < 200; i++) {
    const info = (await connection.sendRequest("workspace/executeCommand", { command: "memls.debugInfo", arguments: [] })) as { scanning: boolean };
    if (!info.scanning) {
      break;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
});

after(async () => {
  if (NO_SERVER) {
    return;
  }
  await connection.sendRequest("shutdown");
  await connection.sendNotification("exit");
  connection.dispose();
  server.kill();
  fs.rmSync(workspace, { recursive: true, force: true });
});

const provider = () => new MemoriesTreeProvider(() => connection.sendRequest(MEMORIES_REQUEST, {}));

test("the view shows roots, then types, then entries with superseded ones under their successor", { skip: NO_SERVER }, async () => {
  const view = provider();
  const [rootNode, ...others] = await view.getChildren();
  assert.equal(others.length, 0);
  const rootItem = view.getTreeItem(rootNode);
  assert.deepEqual([rootItem.label, rootItem.description], ["project", fs.realpathSync(root)]);
  const types = await view.getChildren(rootNode);
  assert.deepEqual(types.map((t) => view.getTreeItem(t).label), ["user", "project"]);
  const entries = await view.getChildren(types[1]);
  assert.deepEqual(entries.map((e) => view.getTreeItem(e).label), ["lost", "new"]);
  const nested = await view.getChildren(entries[1]);
  assert.deepEqual(nested.map((e) => view.getTreeItem(e).label), ["old"]);
});

test("an entry item has its status icon, description tooltip, problem badge, and opens its file", { skip: NO_SERVER }, async () => {
  const view = provider();
  const [rootNode] = await view.getChildren();
  const project = (await view.getChildren(rootNode))[1];
  const [lost, fresh] = await view.getChildren(project);
  const [old] = await view.getChildren(fresh);
  const lostItem = view.getTreeItem(lost);
  assert.equal(lostItem.description, "1 error"); // dangling-supersedes
  assert.deepEqual([(lostItem.iconPath as { id: string }).id, ((lostItem.iconPath as { color?: { id: string } }).color)?.id], ["error", "list.errorForeground"]);
  const oldItem = view.getTreeItem(old);
  assert.equal((oldItem.iconPath as { id: string }).id, "history");
  assert.equal(oldItem.description, "superseded");
  assert.match(String(oldItem.tooltip), /about old/);
  assert.deepEqual([oldItem.command?.command, (oldItem.command?.arguments?.[0] as { fsPath: string }).fsPath], ["vscode.open", path.join(fs.realpathSync(root), "old.md")]);
  const freshItem = view.getTreeItem(fresh);
  assert.equal((freshItem.iconPath as { id: string }).id, "note");
  assert.equal(freshItem.collapsibleState, 1); // collapsed, holding old
});

test("a change on the server sends memoriesChanged, and a refresh shows the new tree", { skip: NO_SERVER }, async () => {
  const view = provider();
  let fired = 0;
  view.onDidChangeTreeData(() => fired++);
  await view.getChildren();
  const before = changes;
  const uri = pathToFileURL(path.join(root, "old.md")).toString();
  await connection.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId: "markdown", version: 1, text: entry("old") } });
  for (let i = 0; i < 100 && changes === before; i++) {
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.ok(changes > before, "the server never sent memls/memoriesChanged");
  view.refresh();
  assert.equal(fired, 1);
  const [rootNode] = await view.getChildren();
  const project = (await view.getChildren(rootNode))[1];
  // The buffer's old is living now: it stands on its own.
  assert.deepEqual((await view.getChildren(project)).map((e) => view.getTreeItem(e).label), ["lost", "new", "old"]);
});

test("a malformed answer gives an empty view and the failure is reported, not thrown", async () => {
  assert.deepEqual(readMemories({ roots: [{ scope: 1 }, "x"] }), []);
  assert.deepEqual(readMemories(undefined), []);
  const reported: string[] = [];
  const view = new MemoriesTreeProvider(() => Promise.reject(new Error("boom")), (m) => reported.push(m));
  assert.deepEqual(await view.getChildren(), []);
  assert.deepEqual(reported, ["memls/memories: boom"]);
});

test("warnings colour an entry without changing its status icon; counts are pluralised", () => {
  const look = itemLook({ kind: "entry", name: "a", description: "d", type: "project", status: "historical", path: "/m/a.md", errors: 0, warnings: 2, superseded: [] });
  assert.deepEqual([look.icon, look.color, look.description, look.expandable], ["archive", "list.warningForeground", "historical · 2 warnings", "none"]);
});
