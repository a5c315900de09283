/** A JSON object of the wire format (snake_case field names). */
export type JsonObject = Record<string, unknown>;
