/**
 * The events `POST /v1/ask` streams, read from SSE messages. Their types are generated from the
 * sidecar's models (generated/contract.ts). A run sends status / tool_call / tool_result / delta
 * events in any number, then exactly one `done` or `error`.
 *
 * `delta` text is the model's raw text; `done.answer` is the checked answer (unsupported
 * citations and remote images removed, Sources appended): clients replace the streamed text
 * with it. No `obsidian` import.
 */
import type { AgentEvent } from "./generated/contract";
import type { SseMessage } from "./sse";

/** Field checks per event: only what the pane relies on; extra fields pass through. */
const REQUIRED: Record<AgentEvent["event"], Record<string, string>> = {
	status: { message: "string" },
	tool_call: { id: "string", name: "string" },
	tool_result: { id: "string", summary: "string", ok: "boolean" },
	delta: { text: "string" },
	done: { answer: "string" },
	error: { code: "string", message: "string" },
};

/**
 * The agent event an SSE message carries, or null for a message this client doesn't know
 * (a newer sidecar may add events). Throws on a known event with a malformed body.
 */
export function toAgentEvent(message: SseMessage): AgentEvent | null {
	const name = message.event;
	if (!Object.prototype.hasOwnProperty.call(REQUIRED, name)) return null;
	const fields = REQUIRED[name as AgentEvent["event"]];
	let data: unknown;
	try {
		data = JSON.parse(message.data);
	} catch {
		throw new Error(`the sidecar sent a "${name}" event that is not JSON`);
	}
	if (typeof data !== "object" || data === null || Array.isArray(data)) {
		throw new Error(`the sidecar sent a "${name}" event that is not an object`);
	}
	const record = data as Record<string, unknown>;
	for (const [field, type] of Object.entries(fields)) {
		if (typeof record[field] !== type) {
			throw new Error(`the sidecar sent a "${name}" event without "${field}"`);
		}
	}
	const event = { ...record, event: name } as AgentEvent;
	if (event.event === "done") {
		event.sources = Array.isArray(event.sources) ? event.sources : [];
		event.removed_citations = Array.isArray(event.removed_citations) ? event.removed_citations : [];
		event.removed_images = Array.isArray(event.removed_images) ? event.removed_images : [];
	}
	if (event.event === "tool_result") {
		event.notes = Array.isArray(event.notes) ? event.notes : [];
	}
	return event;
}
