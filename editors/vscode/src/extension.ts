// The client: starts `kinduct lsp` over stdio for Lucent files. Checks are the server's code
// lenses (check, check compositionally, realizability) and these two commands.
import * as vscode from "vscode";
import { LanguageClient, LanguageClientOptions, ServerOptions } from "vscode-languageclient/node";

let client: LanguageClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const config = vscode.workspace.getConfiguration("kinduct");
  const command = config.get<string>("path", "kinduct");
  const timeout = String(config.get<number>("timeout", 20));
  const server: ServerOptions = { command, args: ["lsp", "--timeout", timeout] };
  const options: LanguageClientOptions = {
    documentSelector: [{ scheme: "file", language: "lucent" }],
  };
  client = new LanguageClient("kinduct", "kinduct (Lucent)", server, options);
  context.subscriptions.push(
    vscode.commands.registerCommand("kinduct.checkFile", async () => {
      const editor = vscode.window.activeTextEditor;
      if (editor && client) {
        await client.sendRequest("workspace/executeCommand",
          { command: "kinduct.check", arguments: [editor.document.uri.toString()] });
      }
    }),
    vscode.commands.registerCommand("kinduct.showCounterexample", async () => {
      const editor = vscode.window.activeTextEditor;
      if (!editor || !client) {
        return;
      }
      const node = await vscode.window.showInputBox({ prompt: "node" });
      const property = await vscode.window.showInputBox({ prompt: "property" });
      const blocks = await client.sendRequest("kinduct/counterexample",
        { uri: editor.document.uri.toString(), node, property });
      const doc = await vscode.workspace.openTextDocument(
        { language: "json", content: JSON.stringify(blocks, null, 2) });
      await vscode.window.showTextDocument(doc, { preview: true });
    }),
  );
  await client.start();
}

export async function deactivate(): Promise<void> {
  if (client) {
    await client.stop();
  }
}
