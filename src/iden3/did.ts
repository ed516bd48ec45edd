/**
 * DIDs of iden3 identities as `vc` outputs them (spec 2.2): the parsed form of a DID with the
 * fields of the did-resolver parse result, built explicitly so the shape does not depend on how
 * a library class happens to serialise.
 */
import type { DID } from '@iden3/js-iden3-core';

/** Spec 2.2 DID object. */
export interface DidObject {
  method: string;
  /** `<chain_family>:<network>:<identifier>` */
  id: string;
  idStrings: string[];
  params: unknown[];
  path: string;
  pathSegments: string[];
  query: string;
  fragment: string;
}

/** The spec 2.2 object of a parsed DID. */
export function didObject(did: DID): DidObject {
  const idStrings = did.idStrings.length > 0 ? [...did.idStrings] : did.id.split(':');
  return {
    method: did.method,
    id: did.id !== '' ? did.id : idStrings.join(':'),
    idStrings,
    params: did.params.map((p) => ({ name: p.name, value: p.value })),
    path: did.path,
    pathSegments: [...did.pathSegments],
    query: did.query,
    fragment: did.fragment,
  };
}
