import { describe, expect, it } from "vitest";
import { conversationMarkdown, noteFileName, uniqueNotePath } from "../src/conversation-note";
import { newConversation, withExchange } from "../src/conversations";

const conversation = withExchange(
	withExchange(newConversation("a", Date.UTC(2026, 10, 24, 9, 30)), {
		question: "When did I last feed the starter?",
		answer: "On 11 November [[Daily/2026-11-11]].\n\nSources:\n- [[Daily/2026-11-11]]",
		selection: null,
		sourcePath: "Recipes/Sourdough Starter.md",
		footer: "",
		at: 1,
	}),
	{
		question: "And what ratio?\nPlease be precise.",
		answer: "1:5:5 [[Recipes/Sourdough Starter#Feeding schedule]].",
		selection: "Feed Gus\ntwice a day",
		sourcePath: "Recipes/Sourdough Starter.md",
		footer: "",
		at: 2,
	},
);

describe("a conversation saved as a note", () => {
	it("has a heading per question, the selection as a collapsed quote and the answers with their citations", () => {
		const text = conversationMarkdown(conversation, new Date(2026, 10, 24, 10, 0));
		expect(text).toMatch(/^---\ncreated: 2026-11-24T\d\d:30\nsaved: 2026-11-24T10:00\ntags: \[vault-agent\]\n---\n# When did I last feed the starter\?\n/);
		expect(text).toContain("## When did I last feed the starter?\n\nOn 11 November [[Daily/2026-11-11]].\n\nSources:\n- [[Daily/2026-11-11]]\n");
		expect(text).toContain("## And what ratio?\n\n> Please be precise.\n\n> [!quote]- Selection\n> Feed Gus\n> twice a day\n\n1:5:5");
		expect(text.endsWith("[[Recipes/Sourdough Starter#Feeding schedule]].\n")).toBe(true);
	});

	it("is named after the title, without characters a path can't hold, and never overwrites", () => {
		expect(noteFileName({ ...conversation, title: 'What is "Gus"? [a/b] #tag: x|y' })).toBe("What is Gus a b tag x y");
		expect(noteFileName({ ...conversation, title: "..." })).toBe("Conversation");
		const taken = new Set(["Vault Agent/Gus.md", "Vault Agent/Gus 2.md"]);
		expect(uniqueNotePath("Vault Agent/", "Gus", (p) => taken.has(p))).toBe("Vault Agent/Gus 3.md");
		expect(uniqueNotePath("", "Gus", () => false)).toBe("Gus.md");
	});
});
