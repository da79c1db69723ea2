/** ABCI events as the devnet records them; CometBFT 0.38 JSON renders attributes as strings with `index: true`. */

export interface ChainEvent {
  type: string;
  attributes: [string, string][];
}

export function eventJson(e: ChainEvent): { type: string; attributes: { key: string; value: string; index: boolean }[] } {
  return { type: e.type, attributes: e.attributes.map(([key, value]) => ({ key, value, index: true })) };
}
