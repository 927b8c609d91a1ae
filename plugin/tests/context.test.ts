import { describe, expect, it } from "vitest";
import { buildAskRequest, describeContext, historyOf } from "../src/context";

describe("the question's body", () => {
	const context = {
		activeNote: { path: "Projects/Kyoto Trip.md", content: "x".repeat(10) },
		selection: "  ",
		neighbourhood: { notes: [{ path: "a.md", relation: "link" as const, depth: 1 }], leftOut: 0 },
	};

	it("carries what is known, and leaves out what is empty", () => {
		expect(buildAskRequest("  Why?  ", context, { profile: "", contextBudget: 100 })).toEqual({
			question: "Why?",
			context_budget: 100,
			active_note: { path: "Projects/Kyoto Trip.md", content: "xxxxxxxxxx" },
			neighbourhood: [{ path: "a.md", relation: "link", depth: 1 }],
		});
		expect(describeContext(context)).toBe("Context: Kyoto Trip and 1 linked note");
		expect(describeContext({ activeNote: null, selection: null, neighbourhood: { notes: [], leftOut: 0 } })).toMatch(/whole vault/);
	});

	it("keeps the last ten exchanges as history, clipped", () => {
		const earlier = Array.from({ length: 12 }, (_, i) => ({ question: `q${i}`, answer: "a".repeat(5_000) }));
		const history = historyOf(earlier);
		expect(history).toHaveLength(20);
		expect(history[0]).toEqual({ role: "user", content: "q2" });
		expect(history[1]?.content).toHaveLength(4_000);
	});
});
