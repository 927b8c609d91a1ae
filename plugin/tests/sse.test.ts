import { describe, expect, it } from "vitest";
import { SseParser, readSse, type SseMessage } from "../src/sse";

const STREAM =
	"event: status\ndata: {\"message\":\"Searching\"}\n\n" +
	": keep-alive\n\n" +
	"event: delta\r\ndata: {\"text\":\"Fed it \"}\r\n\r\n" +
	"event: delta\rdata: {\"text\":\"on Sunday \\u00e9\"}\r\r" +
	"id: 7\nevent: done\ndata: {\"answer\":\"Sunday\",\ndata: \"x\": 1}\n\n";

const EXPECTED: SseMessage[] = [
	{ event: "status", data: '{"message":"Searching"}', id: "" },
	{ event: "delta", data: '{"text":"Fed it "}', id: "" },
	{ event: "delta", data: '{"text":"on Sunday \\u00e9"}', id: "" },
	{ event: "done", data: '{"answer":"Sunday",\n"x": 1}', id: "7" },
];

function parseInPieces(pieces: string[]): SseMessage[] {
	const parser = new SseParser();
	return pieces.flatMap((piece) => parser.push(piece));
}

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
	return new ReadableStream({
		start(controller) {
			for (const chunk of chunks) controller.enqueue(chunk);
			controller.close();
		},
	});
}

describe("SseParser", () => {
	it("parses LF, CRLF and CR line ends, comments and multi-line data", () => {
		expect(parseInPieces([STREAM])).toEqual(EXPECTED);
	});

	it("gives the same messages whichever two places the stream is split at", () => {
		for (let i = 0; i <= STREAM.length; i++) {
			for (let j = i; j <= STREAM.length; j += 7) {
				const pieces = [STREAM.slice(0, i), STREAM.slice(i, j), STREAM.slice(j)];
				expect(parseInPieces(pieces), `split at ${i}, ${j}`).toEqual(EXPECTED);
			}
		}
	});

	it("gives the same messages when fed one character at a time", () => {
		expect(parseInPieces([...STREAM])).toEqual(EXPECTED);
	});

	it("treats a CR at the end of a chunk and an LF at the start of the next as one line end", () => {
		expect(parseInPieces(["data: a\r", "\n\r", "\n"])).toEqual([{ event: "message", data: "a", id: "" }]);
	});

	it("drops an event the stream ends before closing", () => {
		const parser = new SseParser();
		expect(parser.push("event: delta\ndata: {}\n")).toEqual([]);
		expect(parser.end()).toEqual([]);
		expect(parser.push("data: next\n\n")).toEqual([{ event: "message", data: "next", id: "" }]);
	});

	it("ignores unknown fields and keeps a value's colons, stripping one leading space", () => {
		expect(parseInPieces(["retry: 10\nfoo: bar\ndata:  two spaces: kept\n\n"])).toEqual([
			{ event: "message", data: " two spaces: kept", id: "" },
		]);
	});
});

describe("readSse", () => {
	it("decodes UTF-8 split inside a character across chunks", async () => {
		const bytes = new TextEncoder().encode('event: delta\ndata: {"text":"café → 東京"}\n\n');
		const seen: SseMessage[] = [];
		for (let cut = 1; cut < bytes.length; cut++) {
			seen.length = 0;
			await readSse(streamOf([bytes.slice(0, cut), bytes.slice(cut)]), (m) => seen.push(m));
			expect(seen, `cut at byte ${cut}`).toEqual([{ event: "delta", data: '{"text":"café → 東京"}', id: "" }]);
		}
	});

	it("delivers each message as soon as its chunk arrives", async () => {
		let push!: (text: string) => void;
		let close!: () => void;
		const body = new ReadableStream<Uint8Array>({
			start(controller) {
				push = (text) => controller.enqueue(new TextEncoder().encode(text));
				close = () => controller.close();
			},
		});
		const seen: string[] = [];
		const done = readSse(body, (m) => seen.push(m.data));
		push("data: one\n\n");
		await new Promise((resolve) => setTimeout(resolve, 0));
		expect(seen).toEqual(["one"]);
		push("data: two\n\n");
		close();
		await done;
		expect(seen).toEqual(["one", "two"]);
	});
});
