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
