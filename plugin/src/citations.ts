/**
 * Answers as the pane shows them: citations and the Sources list. What an answer may load is
 * ./safe-render.ts's.
 *
 * Citations are Obsidian wikilinks, `[[path/Note#Heading]]` (or `[[paper.pdf#page=3]]`); the
 * renderer turns them into `a.internal-link` elements whose `data-href` is the link text,
 * subpath included, ready for `openLinkText`. The links are always the sidecar's own (in
 * `done.answer`, its Sources list included): the pane never rebuilds one. No `obsidian` import.
 */

/** The link text a rendered internal link opens ("Note#Heading", "paper.pdf#page=3"). */
export function linktextOf(element: Element): string | null {
	const link = element.closest("a.internal-link");
	if (!link) return null;
	const linktext = link.getAttribute("data-href") ?? link.getAttribute("href");
	return linktext ? linktext : null;
}

/**
 * How the Sources list labels a link the sidecar wrote: the note's name and the section,
 * "Recipes/Sourdough Starter#Feeding" -> "Sourdough Starter › Feeding",
 * "papers/baking.pdf#page=3" -> "baking.pdf › Page 3". Only the label: the link stays the sidecar's.
 */
export function linkLabel(linktext: string): string {
	const hash = linktext.indexOf("#");
	const target = hash === -1 ? linktext : linktext.slice(0, hash);
	const subpath = hash === -1 ? "" : linktext.slice(hash + 1);
	const name = (target.split("/").pop() ?? target).replace(/\.md$/i, "");
	const page = /^page=(\d+)$/i.exec(subpath);
	const section = page ? `Page ${page[1]}` : subpath.split("#").pop() ?? "";
	return section && section !== name ? `${name} › ${section}` : name;
}

/**
 * Split off the answer's closing "Sources:" list (the sidecar appends one, one item per entry
 * of `done.sources`), so the pane can show it in a box of its own: `sources` is the list's items,
 * without the heading. Only a list that ends the answer, with nothing but list items after the
 * heading, is split off.
 */
export function splitSources(markdown: string): { body: string; sources: string } {
	const lines = markdown.replace(/\s+$/, "").split("\n");
	for (let i = lines.length - 1; i >= 0; i--) {
		const line = lines[i] ?? "";
		if (/^\s*(?:#{1,6}\s*)?(?:\*\*|__)?\s*sources\s*:?\s*(?:\*\*|__)?\s*:?\s*$/i.test(line)) {
			const rest = lines.slice(i + 1).filter((l) => l.trim() !== "");
			if (rest.length === 0 || !rest.every((l) => /^\s*(?:[-*+]|\d+[.)])\s+/.test(l))) break;
			return {
				body: lines.slice(0, i).join("\n").replace(/\s+$/, ""),
				sources: rest.join("\n"),
			};
		}
		if (line.trim() !== "" && !/^\s*(?:[-*+]|\d+[.)])\s+/.test(line)) break;
	}
	return { body: markdown, sources: "" };
}
