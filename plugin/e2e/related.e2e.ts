/**
 * The related notes view in Chromium against the real sidecar (`POST /v1/related`): notes on
 * the same subject first, linked ones marked; it follows the active note; click opens, hover
 * previews, dragging carries a link.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, openPane, read, screenshot } from "./pane";

let browser: Browser;

beforeAll(async () => {
	browser = await launchBrowser();
});

afterAll(async () => {
	await browser?.close();
});

const listed = (page: Page) => page.$$eval(".vault-agent-related-item", (items) => items.map((item) => item.getAttribute("data-file") ?? ""));

describe("related notes", () => {
	it("lists notes on the recipe's subject before unrelated ones, marking linked notes", async () => {
		const page = await openPane(browser);
		await read(page, (h) => h.plugin.openRelatedView());
		await page.waitForSelector(".vault-agent-related-item");
		expect(await page.textContent(".vault-agent-related-header")).toBe("Related to Sourdough Starter");
		const files = await listed(page);
		expect(files).not.toContain("Recipes/Sourdough Starter.md");
		const unrelated = files.map((f, i) => (/^(Projects|Meetings)\//.test(f) ? i : Infinity));
		for (const bread of ["Recipes/Country Loaf.md", "Recipes/Rosemary Focaccia.md"]) {
			expect(files.indexOf(bread), bread).toBeGreaterThanOrEqual(0);
			expect(files.indexOf(bread), bread).toBeLessThan(Math.min(...unrelated));
		}
		const linked = await page.getAttribute('.vault-agent-related-item[data-file="Recipes/Country Loaf.md"] .vault-agent-related-linked', "data-linked");
		expect(linked).toBe("both");
		await screenshot(page, "related");

		await page.click('.vault-agent-related-item[data-file="Recipes/Country Loaf.md"] a');
		await page.hover('.vault-agent-related-item[data-file="Recipes/Rosemary Focaccia.md"] a');
		const app = await read(page, (h) => ({ opened: h.app.opened, hovers: h.app.hovers }));
		expect(app.opened.at(-1)).toEqual({ linktext: "Recipes/Country Loaf.md", sourcePath: "Recipes/Sourdough Starter.md", newLeaf: false });
		expect(app.hovers.at(-1)).toMatchObject({ linktext: "Recipes/Rosemary Focaccia.md", source: "vault-agent-related" });

		const transfer = await page.evaluateHandle(() => new DataTransfer());
		await page.dispatchEvent('.vault-agent-related-item[data-file="Recipes/Country Loaf.md"]', "dragstart", { dataTransfer: transfer });
		expect(await transfer.evaluate((dt) => dt.getData("text/plain"))).toBe("[[Recipes/Country Loaf]]");
		await page.close();
	});

	it("follows the active note", async () => {
		const page = await openPane(browser);
		await read(page, (h) => h.plugin.openRelatedView());
		await page.waitForSelector(".vault-agent-related-item");
		await page.evaluate(() => window.harness.setActive("Recipes/Miso Soup.md"));
		await page.waitForFunction(() => document.querySelector(".vault-agent-related-header")?.textContent === "Related to Miso Soup");
		await page.waitForSelector('.vault-agent-related-list[data-for="Recipes/Miso Soup.md"]');
		const files = await listed(page);
		expect(files).not.toContain("Recipes/Miso Soup.md");
		expect(files.slice(0, 3)).toContain("Daily/2026-11-07.md"); // "Made Miso Soup for lunch"
		await page.close();
	});
});
