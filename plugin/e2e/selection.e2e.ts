/**
 * "Ask about selection" in Chromium against the real sidecar: the selection goes with the
 * question, and shows as a collapsed quote in the question bubble.
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answered, launchBrowser, openPane, screenshot } from "./pane";

const SELECTION = "Soak the kombu and dried shiitake in cold water, then whisk in white miso off the heat.";
let browser: Browser;

beforeAll(async () => {
	browser = await launchBrowser();
});

afterAll(async () => {
	await browser?.close();
});

async function askAboutSelection() {
	const page = await openPane(browser);
	await page.evaluate((text) => window.harness.askAboutSelection(text), SELECTION);
	await page.waitForSelector(".vault-agent-subject-label");
	expect(await page.textContent(".vault-agent-subject-label")).toMatch(/^Selection: “Soak the kombu/);
	await page.press(".vault-agent-view textarea", "Enter"); // the default question about it
	await answered(page);
	return page;
}

describe("ask about selection", () => {
	it("shows the selection as a collapsed quote in the question bubble, and sends it", async () => {
		const page = await askAboutSelection();
		expect(await page.textContent(".vault-agent-question-text")).toBe("What do my notes say about this?");
		const quote = await page.$eval("details.vault-agent-selection", (el) => ({
			open: (el as HTMLDetailsElement).open,
			summary: el.querySelector("summary")?.textContent,
			text: el.querySelector("blockquote")?.textContent,
		}));
		expect(quote.open).toBe(false);
		expect(quote.summary).toMatch(/^Selection: “Soak the kombu/);
		expect(quote.text).toBe(SELECTION);
		expect(await page.textContent(".vault-agent-context summary")).toMatch(/^Context: the selection, Sourdough Starter and \d+ linked notes$/);
		await page.click("details.vault-agent-selection summary");
		await screenshot(page, "selection");
		await page.close();
	});

	// The extractive profile searches with the selection (and the question), so what it quotes
	// is about the selection's subject, as a model's answer would be.
	it("answers from the notes on the selection's subject, with every profile (extractive here)", async () => {
		const page = await askAboutSelection();
		const links = await page.$$eval(".vault-agent-answer a.internal-link", (as) => as.map((a) => a.getAttribute("data-href") ?? ""));
		expect(links.some((link) => link.startsWith("Recipes/Miso Soup"))).toBe(true);
		await page.close();
	});
});
