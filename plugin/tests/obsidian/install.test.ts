// First run without the sidecar installed: the plugin really spawns the configured command
// (node's child_process), which does not exist; the pane and the settings then show how to
// install it, with copy buttons and "Check again".
import { describe, expect, it } from "vitest";
import { INSTALL_COMMANDS } from "../../src/install";
import type { VaultAgentSettingTab } from "../../src/obsidian/settings-tab";
import { FileSystemAdapter, Setting } from "../../stub/obsidian";
import { loadPlugin } from "./helpers";

const until = async (condition: () => boolean) => {
	for (let i = 0; i < 100 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 20));
	return condition();
};

describe("a sidecar that is not installed", () => {
	it("shows the install commands in the pane and the settings, until a check finds it", async () => {
		const loaded = await loadPlugin();
		Object.assign(loaded.app.vault, { adapter: new FileSystemAdapter(process.cwd()) });
		const copied: string[] = [];
		Object.defineProperty(navigator, "clipboard", { value: { writeText: async (text: string) => void copied.push(text) }, configurable: true });
		Object.assign(loaded.plugin.settings, { autoStart: true, sidecarCommand: "vault-agent-not-installed-4f2 serve" });
		await loaded.plugin.openAskView(null);
		const banner = loaded.app.sidebarEl.querySelector(".vault-agent-install") as HTMLElement;
		expect(banner.isShown()).toBe(false);

		await loaded.plugin.applyAutoStart();
		expect(await until(() => banner.isShown())).toBe(true);
		expect([...banner.querySelectorAll("code")].map((code) => code.textContent)).toEqual([...INSTALL_COMMANDS]);
		(banner.querySelector("button.vault-agent-install-copy") as HTMLElement).click();
		await new Promise((resolve) => setTimeout(resolve, 0));
		expect(copied).toEqual(["uv tool install vault-agent"]);

		const tab = loaded.app.settingTabs[0] as VaultAgentSettingTab;
		tab.display();
		const names = [...tab.containerEl.querySelectorAll(".setting-item")].map((row) => row.getAttribute("data-name"));
		expect(names.slice(0, 3)).toEqual(["Install the sidecar", ...INSTALL_COMMANDS]);

		// Installed meanwhile (here: a command that exists and keeps running): Check again.
		loaded.plugin.settings.sidecarCommand = `${process.execPath} -e setTimeout(()=>{},5000)`;
		const check = Setting.created.filter((s) => s.name === "" && s.controls.some((c) => c.kind === "button")).at(-1);
		await check?.controls.find((c) => c.kind === "button")?.onClick?.();
		expect(await until(() => !banner.isShown())).toBe(true);
		loaded.plugin.unload(); // stops it
	});
});
