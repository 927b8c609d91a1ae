/**
 * Rendering an answer while it streams: the text so far is markdown cut before any construct
 * still being written, so the pane never flashes raw syntax (`[[Daily/2026-1`, `**Maya`) that
 * the next piece turns into a link or bold text. No `obsidian` import.
 */

/** The prefix of `text` that renders as it will once complete (unfinished syntax held back). */
export function renderablePrefix(text: string): string {
	let cut = text.length;
	const open = text.lastIndexOf("[[");
	if (open !== -1 && text.indexOf("]]", open) === -1) cut = text[open - 1] === "!" ? open - 1 : open;
	let prefix = text.slice(0, cut);
	// Emphasis and code spans pair up within a paragraph: hold back an unpaired opener.
	const paragraphStart = prefix.lastIndexOf("\n\n") + 1;
	for (const marker of ["`", "**"]) {
		const paragraph = prefix.slice(paragraphStart);
		if (marker === "`" && /^\s*```/m.test(paragraph)) continue; // a fence: leave it be
		if (count(paragraph, marker) % 2 === 1) prefix = prefix.slice(0, paragraphStart + paragraph.lastIndexOf(marker));
	}
	// A trailing list marker or heading marker alone renders as an empty item: wait for words.
	return prefix.replace(/(^|\n)[ \t]*(?:[-*+]|\d+[.)]|#{1,6})[ \t]*$/, "$1");
}

function count(text: string, marker: string): number {
	let n = 0;
	for (let at = text.indexOf(marker); at !== -1; at = text.indexOf(marker, at + marker.length)) n++;
	return n;
}
