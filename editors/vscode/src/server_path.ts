// Which trl-lint executable the extension starts. No `vscode` import: the vsix test runs it with
// node alone.
import * as fs from "fs";
import * as path from "path";

// The binary the .vsix carries, relative to the extension's folder (packaged by
// `npm run bundle`, which copies build/trl-lint there).
export const BUNDLED = path.join("bin", "trl-lint");

// `configured`: the `trl-lint.path` setting ("" or the default "trl-lint" when unset). A path the
// user set wins; otherwise the binary inside the extension when it is there and executable;
// otherwise `trl-lint` on the PATH.
export function serverPath(extensionDir: string, configured: string | undefined): string {
  if (configured && configured !== "trl-lint") return configured;
  const bundled = path.join(extensionDir, BUNDLED);
  try {
    fs.accessSync(bundled, fs.constants.X_OK);
    return bundled;
  } catch {
    return "trl-lint";
  }
}
