/** Reading back what a file or storage returned, whatever an older version or a hand edit left. */

/** `value` as an object's fields, or null when it is not a plain object (an array, a string). */
export function asRecord(value: unknown): Record<string, unknown> | null {
	return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}
