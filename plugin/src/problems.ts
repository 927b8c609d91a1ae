/**
 * What went wrong, said so the user can act on it: one or two sentences, and the actions that
 * fix it (the pane shows them as buttons; a notice shows the words). No `obsidian` import.
 */
import { SidecarError } from "./client";

export type ProblemAction = "open-settings" | "start-sidecar" | "retry";

export interface Problem {
	message: string;
	actions: ProblemAction[];
}

export interface ProblemContext {
	/** The configured sidecar URL. */
	url: string;
	/** A token is set in the settings. */
	hasToken: boolean;
	/** The plugin started the sidecar and it has not answered yet. */
	starting: boolean;
}

/** `error` (from the client, or anything thrown) as a problem the user can act on. */
export function describeProblem(error: unknown, context: ProblemContext): Problem {
	if (!(error instanceof SidecarError)) {
		const why = error instanceof Error ? error.message : String(error);
		return { message: `Something went wrong: ${why}`, actions: ["retry"] };
	}
	switch (error.kind) {
		case "unreachable":
			if (context.starting) {
				return {
					message: "The Vault Agent sidecar is still starting (loading its model, opening the index). Try again in a moment.",
					actions: ["retry"],
				};
			}
			return {
				message:
					`The Vault Agent sidecar is not running at ${context.url}. Start it (the command is in ` +
					`the settings), or run "vault-agent serve --vault <your vault>" in a terminal.`,
				actions: ["start-sidecar", "open-settings", "retry"],
			};
		case "unauthorized":
			if (!context.hasToken || error.code === "missing_token") {
				return {
					message:
						"No token set: copy the sidecar's token into the settings (vault-agent serve " +
						"prints where it is kept), or let the plugin start the sidecar with a token of its own.",
					actions: ["open-settings"],
				};
			}
			return {
				message:
					"The sidecar rejected the token. Copy it into the settings from the file " +
					"\"vault-agent serve\" names when it starts (~/.config/vault-agent/token on Linux).",
				actions: ["open-settings", "retry"],
			};
		case "impostor":
			return {
				message:
					`Something answers at ${context.url} but could not prove it holds the token in the settings, so ` +
					"neither the token nor your question was sent to it. If another program took the sidecar's " +
					"port, stop it or choose another port; if the sidecar is older than the plugin, update it.",
				actions: ["open-settings", "retry"],
			};
		case "refused":
			return { message: `The sidecar refused the request: ${error.message}.`, actions: ["open-settings"] };
		case "blocked":
			return { message: `The sidecar: ${error.message}`, actions: ["open-settings", "retry"] };
		case "unavailable":
			return { message: `The sidecar is running but its index is unavailable: ${error.message}`, actions: ["retry"] };
		default:
			return { message: `The sidecar: ${error.message}`, actions: ["retry"] };
	}
}

/** The buttons' words. */
export const ACTION_LABELS: Record<ProblemAction, string> = {
	"open-settings": "Open settings",
	"start-sidecar": "Start sidecar",
	retry: "Retry",
};
