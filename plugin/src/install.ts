/**
 * First run for someone who did not clone the repository: when the sidecar command can't be
 * found, the one command that installs it. No `obsidian` import.
 */

/** The install commands, the first for people with uv, the second for pipx. */
export const INSTALL_COMMANDS = ["uv tool install vault-agent", "pipx install vault-agent"] as const;

export const INSTALL_HELP =
	"The Vault Agent sidecar is not installed (its command was not found). Install it with one " +
	"of these commands, then check again. If it is installed, give the command's full path in " +
	"the settings: Obsidian may not see your shell's PATH.";

/** Whether a failed spawn means the program does not exist (rather than failing to run). */
export function isNotFound(error: unknown): boolean {
	const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
	return code === "ENOENT";
}
