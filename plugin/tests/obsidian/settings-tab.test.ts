import { describe, expect, it } from "vitest";
import type { VaultAgentSettingTab } from "../../src/obsidian/settings-tab";
import { DEVICE_STORAGE_KEY } from "../../src/settings";
import { Setting } from "../../stub/obsidian";
import { loadPlugin } from "./helpers";

describe("the settings tab", () => {
	it("saves what the user changes", async () => {
		const { plugin, app } = await loadPlugin();
		const tab = app.settingTabs[0] as VaultAgentSettingTab;
		tab.display();
		const rows = tab.containerEl.querySelectorAll(".setting-item");
		expect([...rows].map((row) => row.getAttribute("data-name"))).toEqual([
			"Sidecar URL",
			"Token",
			"Start the sidecar automatically",
			"Sidecar command",
			"Model profile",
			"Folder for saved conversations",
			"Context",
			"Linked notes depth",
			"Context budget",
		]);
		const control = (name: string, kind: string) =>
			Setting.created.filter((s) => s.name === name).at(-1)?.controls.find((c) => c.kind === kind)?.onChange as
				| ((value: unknown) => Promise<void>)
				| undefined;
		await control("Token", "text")?.("  s3cret ");
		await control("Linked notes depth", "slider")?.(2);
		await control("Context budget", "text")?.("999999");
		await control("Sidecar URL", "text")?.("nonsense");
		await control("Sidecar URL", "text")?.("https://vault-agent.example.org:8765");
		expect(plugin.settings).toMatchObject({ token: "s3cret", neighbourhoodDepth: 2, contextBudget: 100_000, sidecarUrl: "http://127.0.0.1:8765" });
		await control("Sidecar URL", "text")?.("http://localhost:9000/");
		expect(plugin.settings.sidecarUrl).toBe("http://localhost:9000");
		expect(app.pluginData["vault-agent"]).toMatchObject({ contextBudget: 100_000 });
		expect(app.pluginData["vault-agent"]).not.toHaveProperty("token");
		expect(app.localStorage[DEVICE_STORAGE_KEY]).toMatchObject({ token: "s3cret" });
	});
});
