// A stand-in for the `vscode` module, which exists only inside the editor.
// The unit tests load code that imports `vscode` (directly or through
// vscode-languageclient); this stub gives those imports something to bind
// to. Tests that need editor behaviour pass their own doubles instead.
export const workspace = {};
export const window = {};
export const commands = {};
export const extensions = {};
export class Disposable {
  constructor(private readonly callback: () => void) {}
  dispose(): void {
    this.callback();
  }
}

// The parts of the tree view API the Memories view builds its items from.
export enum TreeItemCollapsibleState {
  None = 0,
  Collapsed = 1,
  Expanded = 2,
}
export class ThemeColor {
  constructor(readonly id: string) {}
}
export class ThemeIcon {
  constructor(
    readonly id: string,
    readonly color?: ThemeColor,
  ) {}
}
export class Uri {
  private constructor(readonly fsPath: string) {}
  static file(fsPath: string): Uri {
    return new Uri(fsPath);
  }
}
export class TreeItem {
  id?: string;
  description?: string;
  tooltip?: string;
  iconPath?: ThemeIcon;
  contextValue?: string;
  resourceUri?: Uri;
  command?: { command: string; title: string; arguments?: unknown[] };
  constructor(
    readonly label: string,
    readonly collapsibleState: TreeItemCollapsibleState = TreeItemCollapsibleState.None,
  ) {}
}
export class EventEmitter<T> {
  private listeners: ((value: T) => void)[] = [];
  readonly event = (listener: (value: T) => void): Disposable => {
    this.listeners.push(listener);
    return new Disposable(() => (this.listeners = this.listeners.filter((l) => l !== listener)));
  };
  fire(value: T): void {
    this.listeners.forEach((l) => l(value));
  }
  dispose(): void {
    this.listeners = [];
  }
}
