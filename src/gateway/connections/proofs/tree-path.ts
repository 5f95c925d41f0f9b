/**
 * A dotted path into a parsed body (`google_key`, `payload.uid`, `items.0.id`, `@id` of an XML element): own
 * properties and array indexes only, so a path can never reach a prototype (`__proto__`, `constructor`).
 */
export function readTreePath(tree: unknown, path: string): unknown {
  let node = tree;
  for (const segment of path.split(".")) {
    if (Array.isArray(node)) {
      if (!/^(0|[1-9][0-9]{0,8})$/.test(segment)) return undefined;
      node = node[Number(segment)];
    } else if (node !== null && typeof node === "object" && Object.hasOwn(node, segment)) {
      node = (node as Record<string, unknown>)[segment];
    } else {
      return undefined;
    }
  }
  return node;
}

/** A path segment: anything but a dot, a brace or white space (XML names keep `@`, `#`, `:` and `-`). */
export const TREE_PATH = /^[^.{}\s]+(\.[^.{}\s]+)*$/;
