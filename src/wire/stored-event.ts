/** One streamed event as it is kept for a replay (GET …?stream=true of a stored response or interaction). */
export interface StoredEvent {
  seq: number;
  type: string;
  /** The event's JSON text. */
  data: string;
}
