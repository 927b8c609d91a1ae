import { describe, expect, it } from "vitest";
import { MAX_SELECTION_CHARS } from "../src/context";
import {
	MAX_CONVERSATIONS,
	displayTitle,
	newConversation,
	normaliseConversations,
	remove,
	rename,
	titleFrom,
	upsert,
	withExchange,
	type StoredExchange,
} from "../src/conversations";

const exchange = (question: string, at: number): StoredExchange => ({
	question,
	answer: `About ${question} [[Daily/2026-11-12]]`,
	selection: null,
	sourcePath: "Projects/Kyoto Trip.md",
	footer: "extractive · 2 steps",
	at,
});

describe("conversations", () => {
	it("are titled by their first question, clipped at a word", () => {
		expect(titleFrom("  When did I last feed the starter?\nmore")).toBe("When did I last feed the starter?");
		const long = titleFrom("What did we decide about irrigation in the community garden during the autumn meetings");
		expect(long.length).toBeLessThanOrEqual(60);
		expect(long.endsWith("…")).toBe(true);
		const conversation = withExchange(newConversation("a", 1), exchange("First?", 5));
		expect([conversation.title, conversation.updated, displayTitle(conversation)]).toEqual(["First?", 5, "First?"]);
		expect(withExchange(conversation, exchange("Second?", 9)).title).toBe("First?");
		expect(displayTitle(newConversation("b", 1))).toBe("New conversation");
	});

	it("keep a selection only as long as the question sent it", () => {
		const book = "All work and no play. ".repeat(20_000);
		const kept = withExchange(newConversation("a", 1), { ...exchange("Why?", 5), selection: book });
		expect(kept.exchanges[0]?.selection).toBe(book.slice(0, MAX_SELECTION_CHARS));
		expect(withExchange(newConversation("b", 1), exchange("Why?", 5)).exchanges[0]?.selection).toBeNull();
	});

	it("keep the most recently used first, without empty ones, renamed and deleted by id", () => {
		const a = withExchange(newConversation("a", 1), exchange("A?", 10));
		const b = withExchange(newConversation("b", 2), exchange("B?", 20));
		let list = upsert(upsert(upsert([], a), b), newConversation("empty", 30));
		expect(list.map((c) => c.id)).toEqual(["b", "a"]);
		list = upsert(list, withExchange(a, exchange("A again?", 40)));
		expect(list.map((c) => [c.id, c.exchanges.length])).toEqual([
			["a", 2],
			["b", 1],
		]);
		list = rename(list, "b", "  Bread   questions ");
		expect(list.find((c) => c.id === "b")?.title).toBe("Bread questions");
		expect(remove(list, "a").map((c) => c.id)).toEqual(["b"]);
	});

	it("keep at most MAX_CONVERSATIONS, dropping the least recently used", () => {
		let list = [] as ReturnType<typeof upsert>;
		for (let i = 0; i < MAX_CONVERSATIONS + 5; i++) list = upsert(list, withExchange(newConversation(`c${i}`, i), exchange(`Q${i}?`, i)));
		expect(list).toHaveLength(MAX_CONVERSATIONS);
		expect(list.at(-1)?.id).toBe("c5");
	});

	it("read back from plugin data survive bad entries", () => {
		const good = withExchange(newConversation("a", 1), exchange("A?", 10));
		const raw = JSON.parse(
			JSON.stringify([good, { id: 3 }, "x", { id: "no-exchanges", exchanges: [] }, { id: "b", exchanges: [{ question: "Q?", answer: 5 }] }]),
		) as unknown;
		expect(normaliseConversations(raw)).toEqual([good]);
		expect(normaliseConversations(null)).toEqual([]);
	});
});
