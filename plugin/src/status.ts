/**
 * The status bar item's words for `GET /v1/index` (or for why it failed), and how often to ask
 * again: often while the index is busy, rarely when it is idle. No `obsidian` import.
 */
import { SidecarError } from "./client";
import type { IndexResponse, ModelChoice } from "./generated/contract";

export interface StatusLine {
	text: string;
	/** The longer story, for the tooltip and a click. */
	detail: string;
	/** A sync is running: poll again soon. */
	busy: boolean;
}

export const POLL_BUSY_MS = 1_500;
export const POLL_IDLE_MS = 15_000;

/** What the status bar says about the index. */
export function describeIndex(status: IndexResponse): StatusLine {
	const { counts, progress } = status;
	const busy = status.state === "syncing" || progress.state === "scanning" || progress.state === "indexing";
	const notes = `${counts.indexed} ${counts.indexed === 1 ? "note" : "notes"}`;
	const problems = [
		counts.skipped > 0 ? `${counts.skipped} skipped` : "",
		counts.failed > 0 ? `${counts.failed} failed` : "",
	].filter(Boolean);
	const detail = [
		`Index: ${status.state}; ${notes}, ${counts.chunks} passages`,
		problems.length > 0 ? `(${problems.join(", ")})` : "",
		status.error ? `\n${status.error}` : "",
		status.models ? `\n${describeModels(status.models)}` : "",
		...failedFiles(status),
	]
		.filter(Boolean)
		.join(" ");
	if (busy) {
		const total = progress.files_total;
		const done = Math.min(progress.files_done, total);
		const text = total > 0 ? `Indexing ${done}/${total}` : "Scanning the vault";
		return { text: `Vault Agent: ${text}`, detail, busy };
	}
	if (status.state === "unavailable" || status.state === "error") {
		return { text: "Vault Agent: index error", detail, busy: false };
	}
	const warning = counts.failed > 0 ? ` (${counts.failed} failed)` : "";
	return { text: `Vault Agent: ${notes}${warning}`, detail, busy: false };
}

/** Which models read the vault, for the tooltip: the user sees why a vault in German is
 * searched with multilingual embeddings. */
export function describeModels(models: ModelChoice): string {
	// The same line as the sidecar's `ModelChoice.describe` (what `vault-agent index` prints).
	const embeddings =
		models.family === "server"
			? `${models.model ?? "a served model"} (from a server)`
			: models.family === "multilingual"
				? "multilingual (USE v3)"
				: "English (MiniLM)";
	return `Embeddings: ${embeddings}; keyword search: ${models.language}. ${models.reason}`;
}

/** What the status bar says when `GET /v1/index` failed. */
export function describeFailure(error: unknown): StatusLine {
	if (error instanceof SidecarError && error.kind === "unauthorized") {
		return { text: "Vault Agent: wrong token", detail: error.message, busy: false };
	}
	if (error instanceof SidecarError && error.kind === "unreachable") {
		return { text: "Vault Agent: offline", detail: error.message, busy: false };
	}
	if (error instanceof SidecarError && error.kind === "impostor") {
		return { text: "Vault Agent: not the sidecar", detail: error.message, busy: false };
	}
	const message = error instanceof Error ? error.message : String(error);
	return { text: "Vault Agent: error", detail: message, busy: false };
}

function failedFiles(status: IndexResponse, limit = 5): string[] {
	const failed = status.files.filter((file) => file.state === "failed");
	const lines = failed.slice(0, limit).map((file) => `\n- ${file.file}: ${file.reason ?? "failed"}`);
	if (failed.length > limit) lines.push(`\n- and ${failed.length - limit} more`);
	return lines;
}

/**
 * A warning for the pane while the index is incomplete (a sync running, or the index
 * unavailable), else null: answers then can't see every note.
 */
export function indexWarning(status: IndexResponse | null): string | null {
	if (!status) return null;
	const { progress } = status;
	if (status.state === "syncing" || progress.state === "scanning" || progress.state === "indexing") {
		const total = progress.files_total;
		const where = total > 0 ? ` (${Math.min(progress.files_done, total)} of ${total} notes)` : "";
		return `Indexing your vault${where}: answers may miss notes that are not indexed yet.`;
	}
	if (status.state === "unavailable" || status.state === "error") {
		return `The index is unavailable${status.error ? ` (${status.error})` : ""}: answers can't search your notes.`;
	}
	return null;
}
