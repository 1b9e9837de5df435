// Starts `trl-lint server` (the binary the extension carries, or the one the settings name, with
// their extra arguments) as the
// language server of the workspace: diagnostics (cross-file findings included), quick fixes,
// `# noqa` suppressions, "fix all" on save (`source.fixAll.trl-lint`), and rule docs on hover.
import * as vscode from "vscode";
import { LanguageClient, LanguageClientOptions, ServerOptions } from "vscode-languageclient/node";
import { serverPath } from "./server_path";

let client: LanguageClient | undefined;

function makeClient(extensionDir: string): LanguageClient {
  const config = vscode.workspace.getConfiguration("trl-lint");
  const command = serverPath(extensionDir, config.get<string>("path", ""));
  const args = [...config.get<string[]>("args", []), "server"];
  const serverOptions: ServerOptions = { command, args };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: "file", language: "python" },
      { scheme: "file", language: "yaml" },
      { scheme: "file", language: "shellscript" },
      { scheme: "file", language: "makefile" },
      { scheme: "file", language: "markdown" },
      { scheme: "file", pattern: "**/*.toml" },
    ],
    synchronize: {
      // Files trl-lint reads even when they are not open, and its configuration.
      fileEvents: vscode.workspace.createFileSystemWatcher(
        "**/{*.py,*.yaml,*.yml,*.sh,Makefile,*.md,*.ipynb,pyproject.toml}"
      ),
    },
  };
  return new LanguageClient("trl-lint", "trl-lint", serverOptions, clientOptions);
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  client = makeClient(context.extensionPath);
  await client.start();
  context.subscriptions.push(
    vscode.commands.registerCommand("trl-lint.restart", async () => {
      await client?.stop();
      client = makeClient(context.extensionPath);
      await client.start();
    }),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration("trl-lint")) await vscode.commands.executeCommand("trl-lint.restart");
    })
  );
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
