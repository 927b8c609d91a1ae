/**
 * Server-sent events, parsed as the HTML standard says, from text that arrives in pieces split
 * anywhere: inside a field, between "\r" and "\n", inside a multi-byte character.
 *
 * `SseParser` is the pure state machine; `readSse` feeds it a fetch body. No `obsidian` import.
 */

/** One dispatched event. `event` is "message" when the server named none. */
export interface SseMessage {
	event: string;
	data: string;
	id: string;
}

/** Turns text chunks into messages; keep one per stream. */
export class SseParser {
	private line = "";
	/** The previous chunk ended in "\r": a "\n" starting the next one belongs to it. */
	private skipLineFeed = false;
	private eventType = "";
	private dataLines: string[] = [];
	private lastEventId = "";

	/** Feed the next piece of text; returns the messages it completes, in order. */
	push(chunk: string): SseMessage[] {
		const messages: SseMessage[] = [];
		let start = 0;
		for (let i = 0; i < chunk.length; i++) {
			const char = chunk[i];
			if (char !== "\n" && char !== "\r") {
				this.skipLineFeed = false;
				continue;
			}
			if (char === "\n" && this.skipLineFeed && i === start) {
				// The "\n" of a "\r\n" whose "\r" ended the previous line.
				this.skipLineFeed = false;
				start = i + 1;
				continue;
			}
			this.line += chunk.slice(start, i);
			this.skipLineFeed = char === "\r";
			start = i + 1;
			const message = this.takeLine();
			if (message) messages.push(message);
		}
		this.line += chunk.slice(start);
		return messages;
	}

	/**
	 * The stream ended. Per the standard, an event not closed by a blank line is dropped;
	 * returns nothing, but resets the parser so it can be reused.
	 */
	end(): SseMessage[] {
		this.line = "";
		this.skipLineFeed = false;
		this.eventType = "";
		this.dataLines = [];
		return [];
	}

	private takeLine(): SseMessage | null {
		const line = this.line;
		this.line = "";
		if (line === "") return this.dispatch();
		if (line.startsWith(":")) return null; // a comment (keep-alive)
		const colon = line.indexOf(":");
		const field = colon === -1 ? line : line.slice(0, colon);
		let value = colon === -1 ? "" : line.slice(colon + 1);
		if (value.startsWith(" ")) value = value.slice(1);
		switch (field) {
			case "event":
				this.eventType = value;
				break;
			case "data":
				this.dataLines.push(value);
				break;
			case "id":
				if (!value.includes("\0")) this.lastEventId = value;
				break;
			default: // "retry" and unknown fields: nothing to do for a one-shot stream
				break;
		}
		return null;
	}

	private dispatch(): SseMessage | null {
		const data = this.dataLines;
		const event = this.eventType || "message";
		this.dataLines = [];
		this.eventType = "";
		if (data.length === 0) return null;
		return { event, data: data.join("\n"), id: this.lastEventId };
	}
}

/**
 * Read an SSE body to its end, calling `onMessage` for each event as it completes.
 * Rejects with the reader's error (an `AbortError` when the request was aborted).
 */
export async function readSse(
	body: ReadableStream<Uint8Array>,
	onMessage: (message: SseMessage) => void,
): Promise<void> {
	const reader = body.getReader();
	const decoder = new TextDecoder("utf-8");
	const parser = new SseParser();
	try {
		for (;;) {
			const { done, value } = await reader.read();
			if (done) break;
			for (const message of parser.push(decoder.decode(value, { stream: true }))) {
				onMessage(message);
			}
		}
		for (const message of parser.push(decoder.decode())) onMessage(message);
		parser.end();
	} finally {
		reader.releaseLock();
	}
}
