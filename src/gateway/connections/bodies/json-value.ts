/** The one JSON tree a hook body becomes, whatever its type: what the connection's profile maps. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
