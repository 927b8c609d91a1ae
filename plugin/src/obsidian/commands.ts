/**
 * The plugin's commands. None has a default hotkey (users pick their own).
 *
 * - Ask vault: open the pane, focus the question box.
 * - Ask about selection (editor): the selection becomes the question's subject.
 * - Ask about current note: the open note becomes the subject (only when a note is open).
 * - Re-index vault: ask the sidecar to rescan now.
 * - Open related notes: the view listing the notes closest to the active one.
 */
import { Notice, type Command, type Editor, type MarkdownFileInfo, type MarkdownView } from "obsidian";
import type { Subject } from "../context";

export interface CommandHost {
	addCommand(command: Command): Command;
	/** Open (or reveal) the pane, set the subject, focus the question box. */
	openAskView(subject: Subject | null): Promise<void>;
	/** Ask the sidecar to rescan the vault. */
	reindex(): Promise<void>;
	/** Open (or reveal) the related notes view. */
	openRelatedView(): Promise<void>;
	/** The vault path of the note open in the editor, if any. */
	activeNotePath(): string | null;
}

export const COMMAND_IDS = [
	"ask-vault",
	"ask-about-selection",
	"ask-about-current-note",
	"reindex-vault",
	"open-related-notes",
] as const;

export function registerCommands(host: CommandHost): void {
	host.addCommand({
		id: "ask-vault",
		name: "Ask vault",
		callback: () => void host.openAskView(null),
	});
	host.addCommand({
		id: "ask-about-selection",
		name: "Ask about selection",
		editorCallback: (editor: Editor, context: MarkdownView | MarkdownFileInfo) => {
			const text = editor.getSelection();
			if (!text.trim()) {
				new Notice("Select some text to ask about first.");
				return;
			}
			void host.openAskView({ kind: "selection", text, path: context.file?.path ?? null });
		},
	});
	host.addCommand({
		id: "ask-about-current-note",
		name: "Ask about current note",
		checkCallback: (checking: boolean) => {
			const path = host.activeNotePath();
			if (path === null) return false;
			if (!checking) void host.openAskView({ kind: "note", path });
			return true;
		},
	});
	host.addCommand({
		id: "reindex-vault",
		name: "Re-index vault",
		callback: () => void host.reindex(),
	});
	host.addCommand({
		id: "open-related-notes",
		name: "Open related notes",
		callback: () => void host.openRelatedView(),
	});
}
