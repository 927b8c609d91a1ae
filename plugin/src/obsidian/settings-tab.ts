/**
 * The settings tab: where the sidecar is and how to reach it (URL, token, automatic start and
 * its command), which model profile answers, and how much context a question carries.
 */
import { PluginSettingTab, Setting, type App, type Plugin } from "obsidian";
import { INSTALL_COMMANDS, INSTALL_HELP } from "../install";
import { DEFAULT_SETTINGS, LIMITS, PROFILES, clampInt, parseSidecarUrl, type Profile, type VaultAgentSettings } from "../settings";

/** What the tab needs from the plugin. */
export interface SettingsHost extends Plugin {
	settings: VaultAgentSettings;
	saveSettings(): Promise<void>;
	/** Check the URL and token now, with a notice saying what was found. */
	testConnection(): Promise<void>;
	/** Apply a change of the automatic start setting (start or stop the sidecar). */
	applyAutoStart(): Promise<void>;
	/** The sidecar's command was not found when the plugin tried to start it. */
	sidecarMissing(): boolean;
	/** Try the sidecar's command again (after installing it). */
	checkSidecarAgain(): Promise<void>;
	copy(text: string): Promise<void>;
}

const PROFILE_LABELS: Record<Profile, string> = {
	"": "The sidecar's setting",
	auto: "Auto (Mistral if a key is set, else Ollama, else extractive)",
	extractive: "Extractive (no model: quotes passages, offline)",
	ollama: "Ollama (a local model)",
	mistral: "Mistral (cloud API)",
	openai: "OpenAI-compatible server",
};

export class VaultAgentSettingTab extends PluginSettingTab {
	constructor(
		app: App,
		private readonly host: SettingsHost,
	) {
		super(app, host);
	}

	display(): void {
		const { containerEl } = this;
		const settings = this.host.settings;
		containerEl.empty();

		if (this.host.sidecarMissing()) this.installSection(containerEl);

		new Setting(containerEl)
			.setName("Sidecar URL")
			.setDesc("Where vault-agent serve listens. It only listens on this computer (127.0.0.1).")
			.addText((text) =>
				text
					.setPlaceholder(DEFAULT_SETTINGS.sidecarUrl)
					.setValue(settings.sidecarUrl)
					.onChange(async (value) => {
						const parsed = parseSidecarUrl(value.trim());
						text.inputEl.toggleClass("vault-agent-invalid", parsed === null || !parsed.loopback);
						// Another machine would get the token, the questions and the notes.
						if (!parsed?.loopback) return;
						settings.sidecarUrl = value.trim().replace(/\/+$/, "");
						await this.host.saveSettings();
					}),
			);

		new Setting(containerEl)
			.setName("Token")
			.setDesc(
				"The sidecar's access token: vault-agent serve prints where it is kept. " +
					"With automatic start, a token is made for you.",
			)
			.addText((text) => {
				text.inputEl.type = "password";
				text.setValue(settings.token).onChange(async (value) => {
					settings.token = value.trim();
					await this.host.saveSettings();
				});
			})
			.addButton((button) =>
				button.setButtonText("Test connection").onClick(() => void this.host.testConnection()),
			);

		new Setting(containerEl)
			.setName("Start the sidecar automatically")
			.setDesc(
				"Run the command below when Obsidian starts, with this vault's path, and stop it on quit. " +
					"Kept on this device, with the command and the token, not in the vault.",
			)
			.addToggle((toggle) =>
				toggle.setValue(settings.autoStart).onChange(async (value) => {
					settings.autoStart = value;
					await this.host.saveSettings();
					await this.host.applyAutoStart();
				}),
			);

		new Setting(containerEl)
			.setName("Sidecar command")
			.setDesc(
				"{vault} and {port} are filled in. Obsidian may not see your shell's PATH: use a full " +
					"path, for example /home/me/.local/bin/vault-agent.",
			)
			.addText((text) =>
				text.setValue(settings.sidecarCommand).onChange(async (value) => {
					if (!value.trim()) return;
					settings.sidecarCommand = value.trim();
					await this.host.saveSettings();
				}),
			);

		new Setting(containerEl)
			.setName("Model profile")
			.setDesc(
				"Who writes the answers. Extractive and Ollama keep everything on this computer; " +
					"Mistral and OpenAI-compatible servers receive the question and the notes used as context.",
			)
			.addDropdown((dropdown) => {
				for (const profile of PROFILES) dropdown.addOption(profile, PROFILE_LABELS[profile]);
				dropdown.setValue(settings.profile).onChange(async (value) => {
					settings.profile = value as Profile;
					await this.host.saveSettings();
				});
			});

		new Setting(containerEl)
			.setName("Folder for saved conversations")
			.setDesc("Where a conversation saved as a note goes. Empty: the vault's root.")
			.addText((text) =>
				text
					.setPlaceholder(DEFAULT_SETTINGS.notesFolder)
					.setValue(settings.notesFolder)
					.onChange(async (value) => {
						settings.notesFolder = value.trim();
						await this.host.saveSettings();
					}),
			);

		new Setting(containerEl).setName("Context").setHeading();

		new Setting(containerEl)
			.setName("Linked notes depth")
			.setDesc("How many links away from the open note to look for context (0: the open note alone).")
			.addSlider((slider) =>
				slider
					.setLimits(LIMITS.neighbourhoodDepth.min, LIMITS.neighbourhoodDepth.max, 1)
					.setValue(settings.neighbourhoodDepth)
					.setDynamicTooltip()
					.onChange(async (value) => {
						settings.neighbourhoodDepth = value;
						await this.host.saveSettings();
					}),
			);

		new Setting(containerEl)
			.setName("Context budget")
			.setDesc("Characters of selection, open note and linked notes sent with a question.")
			.addText((text) =>
				text.setValue(String(settings.contextBudget)).onChange(async (value) => {
					settings.contextBudget = clampInt(value, LIMITS.contextBudget, settings.contextBudget);
					await this.host.saveSettings();
				}),
			);
	}

	/** The sidecar is not installed: the commands that install it, and "Check again". */
	private installSection(containerEl: HTMLElement): void {
		new Setting(containerEl).setName("Install the sidecar").setDesc(INSTALL_HELP).setHeading();
		for (const command of INSTALL_COMMANDS) {
			new Setting(containerEl)
				.setName(command)
				.addExtraButton((button) =>
					button
						.setIcon("copy")
						.setTooltip("Copy the command")
						.onClick(() => void this.host.copy(command)),
				);
		}
		new Setting(containerEl).addButton((button) =>
			button.setButtonText("Check again").onClick(async () => {
				await this.host.checkSidecarAgain();
				this.display();
			}),
		);
	}
}
