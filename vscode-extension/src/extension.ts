/**
 * The VS Code side of memls: starts the server for memory documents and adds
 * the palette commands, the status bar item (fed by the server's
 * `memls/status` notification) and the output channel.
 *
 * Everything the editor needs (diagnostics, fixes, navigation, rename,
 * MEMORY.md on save) comes from the server over LSP; this file only decides
 * when and how to run it. The decisions themselves live in small modules
 * without a `vscode` import so they can be tested under plain Node.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as readline from "node:readline";
import * as vscode from "vscode";
import {
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  RevealOutputChannelOn,
  ServerOptions,
  State,
  TransportKind,
} from "vscode-languageclient/node";
import { MEMORIES_CHANGED, MEMORIES_REQUEST, MEMORIES_VIEW, MemoriesTreeProvider } from "./memoriesView";
import { isMemoryDocument, MemoryDocumentFilter, memoryDocumentFilters, MEMORY_DOCUMENT_GLOBS, ROOT_MARKER_GLOB, rootsFromMarkers } from "./memoryDocuments";
import { rootChoices, serverRoots } from "./memoryRoots";
import { probePython } from "./python";
import { frontmatterHeader, isEntryFileName, locationPath, MemoryItem, recallItems } from "./results";
import { stderrLevels } from "./serverLog";
import { readStatus, STATUS_ACTIONS, statusView } from "./status";
import { successorChoices, supersedePlan } from "./supersedePlan";
import { describeServer, findExecutable, resolveServerCommand, ServerCommand } from "./serverCommand";
import { absoluteRoots, expandVariables, initializationOptions, needsRestart, SECTION, serverSettings, VariableContext } from "./settings";

const MEMORY_TYPES = ["user", "feedback", "project", "reference", "general"];
const MAX_MARKER_ROOTS = 200;
const STATUS_ACTIONS_COMMAND = "memls.statusActions";
const LAST_ROOT_KEY = "memls.newMemory.lastRoot";

class MemlsExtension implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private server: ServerCommand | undefined;
  private filters: MemoryDocumentFilter[] = memoryDocumentFilters([]);
  private starting: Promise<void> | undefined;
  private readonly output = vscode.window.createOutputChannel("memls", { log: true });
  private readonly status = vscode.window.createStatusBarItem("memls.status", vscode.StatusBarAlignment.Right, 100);
  private readonly disposables: vscode.Disposable[] = [];
  private readonly memories = new MemoriesTreeProvider(
    async () => (this.client?.isRunning() ? this.client.sendRequest(MEMORIES_REQUEST, {}) : undefined),
    (message) => this.output.warn(message),
  );

  constructor(private readonly context: vscode.ExtensionContext) {
    this.status.name = "memls";
    this.status.command = STATUS_ACTIONS_COMMAND;
  }

  activate(): void {
    const register = (id: string, run: () => unknown) =>
      this.disposables.push(vscode.commands.registerCommand(id, () => this.guard(run)));
    register("memls.palette.regenerateIndex", () => this.regenerateIndex());
    register("memls.palette.supersede", () => this.supersede());
    register("memls.palette.newMemory", () => this.newMemory());
    register("memls.palette.recall", () => this.recall());
    register("memls.restartServer", () => this.restart());
    register("memls.showOutput", () => this.output.show());
    register("memls.memories.refresh", () => this.memories.refresh());
    this.disposables.push(this.memories, vscode.window.createTreeView(MEMORIES_VIEW, { treeDataProvider: this.memories, showCollapseAll: true }));
    register(STATUS_ACTIONS_COMMAND, () => this.statusActions());
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((event) => this.guard(() => this.configurationChanged(event))),
      vscode.workspace.onDidOpenTextDocument((doc) => this.guard(() => this.startFor(doc))),
    );
    void this.guard(() => this.startIfMemoriesPresent());
  }

  /** Start at once when the workspace has memories or one is open; else wait for one to open. */
  private async startIfMemoriesPresent(): Promise<void> {
    this.filters = await this.currentFilters();
    const open = vscode.workspace.textDocuments.some((doc) => this.isMemory(doc));
    const present = this.filters.some((f) => f.kind === "root") || (await this.workspaceHasMemories());
    if (open || present) {
      await this.start();
    }
  }

  private async workspaceHasMemories(): Promise<boolean> {
    for (const glob of MEMORY_DOCUMENT_GLOBS) {
      if ((await vscode.workspace.findFiles(glob, "**/node_modules/**", 1)).length > 0) {
        return true;
      }
    }
    return false;
  }

  private async startFor(doc: vscode.TextDocument): Promise<void> {
    if (!this.client && !this.starting && this.isMemory(doc)) {
      await this.start();
    }
  }

  private isMemory(doc: vscode.TextDocument): boolean {
    return doc.uri.scheme === "file" && isMemoryDocument(doc.uri.fsPath, this.filters);
  }

  private variables(): VariableContext {
    return { workspaceFolder: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath };
  }

  private read(): (key: string) => unknown {
    const config = vscode.workspace.getConfiguration(SECTION);
    return (key) => config.get(key);
  }

  /** Static globs, configured roots, and folders holding a MEMORY.md or index policy. */
  private async currentFilters(): Promise<MemoryDocumentFilter[]> {
    const configured = absoluteRoots(serverSettings(this.read(), this.variables()), this.variables());
    const markers = await vscode.workspace.findFiles(ROOT_MARKER_GLOB, "**/node_modules/**", MAX_MARKER_ROOTS);
    return memoryDocumentFilters([...configured, ...rootsFromMarkers(markers.map((uri) => uri.fsPath))]);
  }

  private start(): Promise<void> {
    this.starting ??= this.doStart().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private async doStart(): Promise<void> {
    this.showStatus("$(sync~spin) memls", "Starting the memls server");
    this.filters = await this.currentFilters();
    const read = this.read();
    const resolution = await resolveServerCommand({
      serverPath: expandVariables(String(read("server.path") ?? "").trim(), this.variables()),
      interpreter: expandVariables(String(read("server.interpreter") ?? "").trim(), this.variables()),
      bundledServerScript: this.context.asAbsolutePath(path.join("bundled", "tool", "server.py")),
      findExecutable: (name) => findExecutable(name),
      pythonExtensionInterpreter: () => pythonExtensionInterpreter(),
      probe: (python) => probePython(python),
      isFile: (p) => fs.existsSync(p) && fs.statSync(p).isFile(),
      platform: process.platform,
    });
    if (!resolution.ok) {
      this.output.error(resolution.message);
      this.showStatus("$(error) memls", resolution.message);
      void this.offerFix(resolution.message, resolution.fix);
      return;
    }
    resolution.notes.forEach((note) => this.output.warn(note));
    this.server = resolution.server;
    this.output.info(`Starting ${describeServer(resolution.server)}`);
    const serverOptions: ServerOptions = {
      command: resolution.server.command,
      args: resolution.server.args,
      transport: TransportKind.stdio,
      options: { env: { ...process.env, PYTHONUNBUFFERED: "1" } },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: this.filters.map((filter) =>
        filter.kind === "glob"
          ? { scheme: "file", pattern: filter.pattern }
          : { scheme: "file", pattern: { baseUri: vscode.Uri.file(filter.directory).toString(), pattern: "*.md" } },
      ),
      outputChannel: this.output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      // Python's log records at their own level (the client's default makes every stderr line an error).
      stdioOptions: {
        stdout: (input, channel) => readline.createInterface({ input, crlfDelay: Infinity, terminal: false }).on("line", (line) => channel.info(line)),
        stderr: (input, channel) => {
          const level = stderrLevels();
          readline.createInterface({ input, crlfDelay: Infinity, terminal: false }).on("line", (line) => channel[level(line)](line));
        },
      },
      initializationOptions: initializationOptions(read, this.variables()),
      middleware: {
        workspace: {
          // The server asks for "memls" in its own shape, not VS Code's.
          configuration: async (params, token, next) => {
            const answer = await next(params, token);
            if (!Array.isArray(answer)) {
              return answer;
            }
            return params.items.map((item, i) => (item.section === SECTION ? serverSettings(this.read(), this.variables()) : answer[i]));
          },
        },
      },
    };
    const client = new LanguageClient("memls", "memls", serverOptions, clientOptions);
    client.onNotification("memls/status", (params: unknown) => {
      const status = readStatus(params);
      if (status) {
        const view = statusView(status, describeServer(resolution.server));
        this.showStatus(view.text, view.tooltip);
      }
    });
    client.onDidChangeState((event) => {
      if (event.newState === State.Stopped) {
        this.showStatus("$(debug-disconnect) memls", "The memls server is not running. Click to restart it or see its output.");
      }
    });
    this.client = client;
    try {
      await client.start();
    } catch (error) {
      const message = `The memls server did not start: ${errorText(error)}`;
      this.output.error(message);
      this.showStatus("$(error) memls", message);
      void vscode.window.showErrorMessage(message, "Show Output").then((choice) => choice && this.output.show());
      return;
    }
    client.onNotification(MEMORIES_CHANGED, () => this.memories.refresh());
    this.memories.refresh();
    void vscode.commands.executeCommand("setContext", "memls.serverStarted", true);
  }

  private async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) {
      try {
        await client.stop();
      } catch (error) {
        this.output.warn(`Stopping the server: ${errorText(error)}`);
      }
    }
  }

  private async restart(): Promise<void> {
    await this.starting;
    await this.stop();
    await this.start();
  }

  private async configurationChanged(event: vscode.ConfigurationChangeEvent): Promise<void> {
    if (!event.affectsConfiguration(SECTION)) {
      return;
    }
    if (needsRestart((key) => event.affectsConfiguration(key))) {
      if (this.client) {
        await this.restart();
      } else {
        await this.startIfMemoriesPresent();
      }
      return;
    }
    if (this.client?.isRunning()) {
      await this.client.sendNotification(DidChangeConfigurationNotification.type, {
        settings: serverSettings(this.read(), this.variables()),
      });
    }
  }

  private async offerFix(message: string, setting: string): Promise<void> {
    const actions = ["Open Settings"];
    if (setting === "memls.server.interpreter" && vscode.extensions.getExtension("ms-python.python")) {
      actions.push("Select Interpreter");
    }
    const choice = await vscode.window.showErrorMessage(message, ...actions);
    if (choice === "Open Settings") {
      await vscode.commands.executeCommand("workbench.action.openSettings", setting);
    } else if (choice === "Select Interpreter") {
      await vscode.commands.executeCommand("python.setInterpreter");
    }
  }

  // -- status bar ------------------------------------------------------------

  private showStatus(text: string, tooltip: string): void {
    this.status.text = text;
    this.status.tooltip = tooltip;
    this.status.show();
  }

  /** The status item's click: a quick pick of what one does with memories and the server. */
  private async statusActions(): Promise<void> {
    const picked = await vscode.window.showQuickPick(STATUS_ACTIONS.map((action) => ({ ...action })), { title: "memls" });
    if (picked) {
      await vscode.commands.executeCommand(picked.command);
    }
  }

  // -- commands ----------------------------------------------------------------

  private async execute(command: string, args: unknown[]): Promise<unknown> {
    if (!this.client) {
      await this.start();
    }
    const client = this.client;
    if (!client) {
      throw new Error("the memls server is not running (see: memls: Show server output)");
    }
    return client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args });
  }

  /** The open memory document's URI: commands act on its root rather than the first one. */
  private activeMemoryUri(): string | undefined {
    const doc = vscode.window.activeTextEditor?.document;
    return doc && this.isMemory(doc) ? doc.uri.toString() : undefined;
  }

  private async regenerateIndex(): Promise<void> {
    const target = this.activeMemoryUri();
    const result = await this.execute("memls.regenerateIndex", target ? [target] : []);
    const changed = result && typeof result === "object" ? (result as { changed?: unknown }).changed : undefined;
    void vscode.window.showInformationMessage(changed === false ? "MEMORY.md is already up to date." : "MEMORY.md regenerated.");
  }

  private async supersede(): Promise<void> {
    const doc = vscode.window.activeTextEditor?.document;
    if (!doc || !this.isMemory(doc) || !isEntryFileName(path.basename(doc.uri.fsPath))) {
      void vscode.window.showWarningMessage("Open the memory to supersede first.");
      return;
    }
    const current = frontmatterHeader(doc.getText(), doc.uri.fsPath);
    const candidates = siblingEntries(doc.uri.fsPath).filter((item) => item.name !== current.name);
    const choices = successorChoices(candidates.map((item) => ({ ...item, status: item.status ?? "living" })));
    const firstOther = choices.findIndex((choice) => !choice.living);
    const items: (vscode.QuickPickItem & { choice?: (typeof choices)[number] })[] = choices.map((choice) => ({ ...choice, choice }));
    if (firstOther >= 0) {
      items.splice(firstOther, 0, { label: "not living", kind: vscode.QuickPickItemKind.Separator });
    }
    const picked = await vscode.window.showQuickPick(items, {
      title: `Supersede ${current.name} with…`,
      placeHolder: "The living memory that replaces this one",
      matchOnDescription: true,
    });
    const choice = picked?.choice;
    if (!choice) {
      return;
    }
    if (!choice.living) {
      void vscode.window.showWarningMessage(`${choice.name} is not living: only a living memory can supersede another.`);
      return;
    }
    const successorFile = candidates.find((item) => item.name === choice.name)?.location ?? `${choice.name}.md`;
    const confirm = await vscode.window.showWarningMessage(
      `Supersede ${current.name} with ${choice.name}?`,
      { modal: true, detail: supersedePlan(current.name, doc.uri.fsPath, choice.name, successorFile) },
      "Supersede",
    );
    if (confirm !== "Supersede") {
      return;
    }
    await this.execute("memls.supersede", [current.name, choice.name, doc.uri.toString()]);
    void vscode.window.showInformationMessage(`${current.name} is now superseded by ${choice.name}.`);
  }

  /**
   * The root New memory… writes to when no memory is open: asked when the
   * server knows several (folders, layers), the last choice offered first.
   * undefined: the user cancelled. "" : let the server choose (one root or none).
   */
  private async chooseRoot(): Promise<string | undefined> {
    const roots = serverRoots(await this.execute("memls.debugInfo", []));
    if (roots.length <= 1) {
      return roots[0]?.path ?? "";
    }
    const last = this.context.workspaceState.get<string>(LAST_ROOT_KEY);
    const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
    const picked = await vscode.window.showQuickPick(rootChoices(roots, folders, last), {
      title: "New memory: where",
      placeHolder: "The memory root (folder and layer) to write the new memory in",
      matchOnDetail: true,
    });
    if (!picked) {
      return undefined;
    }
    await this.context.workspaceState.update(LAST_ROOT_KEY, picked.root);
    return picked.root;
  }

  private async newMemory(): Promise<void> {
    const target = this.activeMemoryUri() ?? (await this.chooseRoot());
    if (target === undefined) {
      return;
    }
    const name = await vscode.window.showInputBox({
      title: "New memory (1/3): name",
      prompt: "A short kebab-case name; it becomes the file name",
      validateInput: (value) => (value.trim() === "" ? "A name is required" : /[\\/]/.test(value) ? "A name cannot contain / or \\" : undefined),
    });
    if (name === undefined) {
      return;
    }
    const description = await vscode.window.showInputBox({
      title: "New memory (2/3): description",
      prompt: "One line saying when this memory is worth reading",
      validateInput: (value) => (value.trim() === "" ? "A description is required" : undefined),
    });
    if (description === undefined) {
      return;
    }
    const type = await vscode.window.showQuickPick(MEMORY_TYPES, { title: "New memory (3/3): type" });
    if (type === undefined) {
      return;
    }
    const result = await this.execute("memls.newMemory", [name.trim(), description.trim(), type, ...(target ? ["", target] : [])]);
    await openItem(typeof result === "string" ? { name, description, location: result } : recallItems([result])[0]);
  }

  private async recall(): Promise<void> {
    const query = await vscode.window.showInputBox({ title: "Recall memories", prompt: "Words to look for" });
    if (!query) {
      return;
    }
    const items = recallItems(await this.execute("memls.recall", [query, 20]));
    if (items.length === 0) {
      void vscode.window.showInformationMessage(`No memory matches "${query}".`);
      return;
    }
    const picked = await vscode.window.showQuickPick(
      items.map((item) => ({ label: item.name, description: item.description, item })),
      { title: `Memories for "${query}"`, matchOnDescription: true },
    );
    await openItem(picked?.item);
  }

  private async guard(run: () => unknown): Promise<void> {
    try {
      await run();
    } catch (error) {
      const message = `memls: ${errorText(error)}`;
      this.output.error(message);
      void vscode.window.showErrorMessage(message);
    }
  }

  async dispose(): Promise<void> {
    this.disposables.forEach((d) => d.dispose());
    await this.stop();
    this.status.dispose();
    this.output.dispose();
  }
}

/** The entries of the memory's own root folder: the names it can be superseded by. */
function siblingEntries(filePath: string): MemoryItem[] {
  const dir = path.dirname(filePath);
  const items: MemoryItem[] = [];
  for (const fileName of fs.readdirSync(dir).filter(isEntryFileName).sort()) {
    const full = path.join(dir, fileName);
    try {
      items.push(frontmatterHeader(fs.readFileSync(full, "utf8"), full));
    } catch {
      // unreadable: the server reports it
    }
  }
  return items;
}

async function openItem(item: MemoryItem | undefined): Promise<void> {
  const file = item?.location ? locationPath(item.location) : undefined;
  if (file) {
    await vscode.window.showTextDocument(vscode.Uri.file(file));
  }
}

interface PythonExtensionApi {
  environments?: {
    getActiveEnvironmentPath?: (resource?: vscode.Uri) => { path: string } | undefined;
    resolveEnvironment?: (env: { path: string } | string) => Promise<{ executable?: { uri?: vscode.Uri } } | undefined>;
  };
}

/** The interpreter selected in the Python extension, when it is installed. */
async function pythonExtensionInterpreter(): Promise<string | undefined> {
  const extension = vscode.extensions.getExtension<PythonExtensionApi>("ms-python.python");
  if (!extension) {
    return undefined;
  }
  try {
    const api = extension.isActive ? extension.exports : await extension.activate();
    const active = api?.environments?.getActiveEnvironmentPath?.(vscode.workspace.workspaceFolders?.[0]?.uri);
    if (!active) {
      return undefined;
    }
    const resolved = await api.environments?.resolveEnvironment?.(active);
    return resolved?.executable?.uri?.fsPath ?? active.path;
  } catch {
    return undefined;
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

let extension: MemlsExtension | undefined;

export function activate(context: vscode.ExtensionContext): void {
  extension = new MemlsExtension(context);
  context.subscriptions.push({ dispose: () => void extension?.dispose() });
  extension.activate();
}

export async function deactivate(): Promise<void> {
  await extension?.dispose();
  extension = undefined;
}
