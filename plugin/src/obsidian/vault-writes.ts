/**
 * What the plugin writes into the vault, only when the user asks: a conversation saved as a
 * note (in the folder the settings name), and an answer inserted at the cursor of the last
 * active editor.
 */
import { MarkdownView, Notice, TFile, TFolder, normalizePath, type App } from "obsidian";
import { conversationMarkdown, noteFileName, uniqueNotePath } from "../conversation-note";
import type { Conversation } from "../conversations";
import { inert } from "../runnable";

/** Write `conversation` to a new note in `folder` (created if missing) and open it. */
export async function saveConversationNote(app: App, conversation: Conversation, folder: string): Promise<TFile | null> {
	if (conversation.exchanges.length === 0) {
		new Notice("Nothing to save yet: ask a question first.");
		return null;
	}
	// Taken whatever its case or Unicode form: macOS and Windows would refuse the new name.
	const key = (path: string) => path.normalize("NFC").toLowerCase();
	let dir = normalizePath(folder.trim() || "/");
	if (dir !== "/" && !(app.vault.getAbstractFileByPath(dir) instanceof TFolder)) {
		// "chats" in the settings and a "Chats" folder: one folder to macOS and Windows.
		const existing = app.vault.getAllLoadedFiles().find((f) => f instanceof TFolder && key(f.path) === key(dir));
		if (existing) {
			dir = existing.path;
		} else {
			try {
				await app.vault.createFolder(dir);
			} catch (error) {
				new Notice(`Could not make the folder ${dir}: ${error instanceof Error ? error.message : String(error)}`);
				return null;
			}
		}
	}
	const taken = new Set(app.vault.getAllLoadedFiles().map((file) => key(file.path)));
	const path = uniqueNotePath(dir === "/" ? "" : dir, noteFileName(conversation), (p) => taken.has(key(p)));
	let file: TFile;
	try {
		file = await app.vault.create(path, conversationMarkdown(conversation, new Date()));
	} catch (error) {
		new Notice(`Could not save the conversation to ${path}: ${error instanceof Error ? error.message : String(error)}`);
		return null;
	}
	new Notice(`Saved the conversation to ${path}.`);
	await app.workspace.getLeaf("tab").openFile(file);
	return file;
}

/** Insert `markdown` at the cursor of the most recent editor; false (with a notice) if none. */
export function insertAtCursor(app: App, markdown: string): boolean {
	const view = app.workspace.getMostRecentLeaf()?.view;
	if (!(view instanceof MarkdownView)) {
		new Notice("Open a note to insert the answer into.");
		return false;
	}
	// Dataview would run an inline query of the answer in the note, Templater a command later.
	view.editor.replaceSelection(inert(markdown));
	new Notice(`Inserted the answer into ${view.file?.basename ?? "the note"}.`);
	return true;
}
