/** Type OIDs and typmods live with the types (src/types/oids.ts), which the engine's catalog reads too. */
export { TYPE_OID, ARRAY_OID, TYPE_SIZE, typeOid, typmodOf, typeOfOid } from '../../types/index.js';
