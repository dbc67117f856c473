/**
 * The Memories view in the Explorer: roots → types → entries, from the server.
 *
 * The tree is asked for with `memls/memories` when the view first shows a
 * level, and asked for again after the server's `memls/memoriesChanged`
 * (it sends one after any change to the model, a burst at a time). Without a
 * running server the view is empty. Looks are decided in `memoriesTree.ts`.
 */
import * as vscode from "vscode";
import { childrenOf, itemLook, MemoryNode, readMemories, RootNode } from "./memoriesTree";

export const MEMORIES_VIEW = "memls.memories";
export const MEMORIES_REQUEST = "memls/memories";
export const MEMORIES_CHANGED = "memls/memoriesChanged";

export class MemoriesTreeProvider implements vscode.TreeDataProvider<MemoryNode>, vscode.Disposable {
  private roots: Promise<RootNode[]> | undefined;
  private readonly changed = new vscode.EventEmitter<MemoryNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  /** `fetch` answers `memls/memories` (undefined when no server runs); `report` logs a failure. */
  constructor(
    private readonly fetch: () => Promise<unknown>,
    private readonly report: (message: string) => void = () => undefined,
  ) {}

  /** Forget the tree; the view asks again for what it shows. */
  refresh(): void {
    this.roots = undefined;
    this.changed.fire(undefined);
  }

  async getChildren(node?: MemoryNode): Promise<MemoryNode[]> {
    this.roots ??= this.load();
    return childrenOf(node, await this.roots);
  }

  getTreeItem(node: MemoryNode): vscode.TreeItem {
    const look = itemLook(node);
    const item = new vscode.TreeItem(
      look.label,
      look.expandable === "none"
        ? vscode.TreeItemCollapsibleState.None
        : look.expandable === "collapsed"
          ? vscode.TreeItemCollapsibleState.Collapsed
          : vscode.TreeItemCollapsibleState.Expanded,
    );
    item.id = look.id;
    item.description = look.description;
    item.tooltip = look.tooltip;
    item.iconPath = new vscode.ThemeIcon(look.icon, look.color ? new vscode.ThemeColor(look.color) : undefined);
    item.contextValue = `memls.${node.kind}`;
    if (look.open) {
      const uri = vscode.Uri.file(look.open);
      item.resourceUri = uri; // also brings the editor's own problem decorations
      item.command = { command: "vscode.open", title: "Open memory", arguments: [uri] };
    }
    return item;
  }

  private async load(): Promise<RootNode[]> {
    try {
      return readMemories(await this.fetch());
    } catch (error) {
      this.report(`${MEMORIES_REQUEST}: ${error instanceof Error ? error.message : String(error)}`);
      return [];
    }
  }

  dispose(): void {
    this.changed.dispose();
  }
}
