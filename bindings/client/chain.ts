/** The Cosmos account conventions a client needs before any key is touched (constants only). */
export const BECH32_PREFIX = "cosmos";
/** BIP-44 path of the first Cosmos Hub account key, what `keys add` uses by default. */
export const HD_PATH = "m/44'/118'/0'/0/0";
