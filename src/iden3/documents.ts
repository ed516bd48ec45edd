/**
 * Offline JSON-LD contexts and JSON schemas for iden3 credentials. The js-sdk fetches contexts
 * and schemas by URL (to build credentials, merklize them and parse queries); `vc` answers every
 * such request from documents it knows, so nothing ever goes to the network:
 * - bundled types: each fixtures/schemas/<name>.json whose `$metadata.uris.jsonLdContext` names a
 *   context shipped as fixtures/contexts/<name>.json (PassportCredential is iden3-passport-v1);
 * - registered types: a context and schema given by the user (`vc issuer issue --context FILE
 *   --schema FILE`), kept in the store namespace `iden3.documents` under their URLs;
 * - the W3C and iden3 core documents the js-sdk embeds (credentials v1, iden3proofs, auth);
 * - documents the user pinned (`vc documents add URL FILE`: src/store/pinnedDocuments.ts), read
 *   after all of the above and checked against the hash recorded when they were added.
 * A schema names its URL in `$id` or, in the official iden3 format, in
 * `$metadata.uris.jsonSchema`. An unknown URL is an error naming it and the command that adds
 * it, never a download.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { UnprocessableError, didYouMean } from '../errors.js';
import { packageRoot } from '../paths.js';
import { addDocumentCommand, listPinnedDocuments, readPinnedDocument } from '../store/pinnedDocuments.js';
import { shareEventLoop } from '../eventLoop.js';
import type { WalletStore } from '../store/store.js';
import type { Sdk } from './modules.js';
import { contextDefinesType, contextFieldsOfType, contextTypes, schemaFieldsOf } from './typeFields.js';

const DOCUMENTS_NS = 'iden3.documents';

/** The context URL of the bundled PassportCredential. */
export const PASSPORT_CONTEXT_URL = 'https://schemas.vc.example/iden3/passport/v1/passport.jsonld';
/** The JSON schema URL of the bundled PassportCredential. */
export const PASSPORT_SCHEMA_URL = 'https://schemas.vc.example/iden3/passport/v1/passport.json';
export const PASSPORT_TYPE = 'PassportCredential';

/** A credential type `vc` can issue: its name, schema and context URLs. */
export interface CredentialTypeInfo {
  type: string;
  schemaUrl: string;
  contextUrl: string;
}

interface JsonSchemaDocument {
  $id?: string;
  $metadata?: { type?: string; uris?: { jsonLdContext?: string; jsonSchema?: string } };
}

/** The URL of an iden3 JSON schema: its `$id`, or `$metadata.uris.jsonSchema` (the official format has no `$id`). */
export function schemaUrlOf(schema: unknown): string | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const s = schema as JsonSchemaDocument;
  if (typeof s.$id === 'string') return s.$id;
  const uri = s.$metadata?.uris?.jsonSchema;
  return typeof uri === 'string' ? uri : undefined;
}

/** An unknown document: its URL and the command that adds it. */
export function unknownDocumentError(url: string, what: string, field: string, where?: string): UnprocessableError {
  return new UnprocessableError(`${where === undefined ? '' : `${where}: `}unknown ${what} ${url}: add it with \`${addDocumentCommand(url)}\` (vc never fetches documents from the network)`, {
    field,
    publicUrls: [url],
  });
}

/** The package root (where package.json and fixtures/ live), shared with the rest of vc. */
export { packageRoot };

interface BundledDocuments {
  documents: Map<string, unknown>;
  types: CredentialTypeInfo[];
}

function readJson(file: string): unknown {
  return JSON.parse(readFileSync(file, 'utf8')) as unknown;
}

/** Reads the bundled schema/context pairs from fixtures/. */
export function bundledDocuments(): BundledDocuments {
  const root = packageRoot();
  const schemasDir = path.join(root, 'fixtures', 'schemas');
  const documents = new Map<string, unknown>();
  const types: CredentialTypeInfo[] = [];
  if (!existsSync(schemasDir)) return { documents, types };
  for (const file of readdirSync(schemasDir).filter((f) => f.endsWith('.json')).sort()) {
    const schema = readJson(path.join(schemasDir, file)) as JsonSchemaDocument;
    const contextUrl = schema.$metadata?.uris?.jsonLdContext;
    const type = schema.$metadata?.type;
    const schemaUrl = schemaUrlOf(schema);
    const contextFile = path.join(root, 'fixtures', 'contexts', file);
    if (schemaUrl === undefined || contextUrl === undefined || type === undefined || !existsSync(contextFile)) continue;
    documents.set(schemaUrl, schema);
    documents.set(contextUrl, readJson(contextFile));
    types.push({ type, schemaUrl, contextUrl });
  }
  return { documents, types };
}

/** The document loader shape of jsonld / js-jsonld-merklization. */
export type DocumentLoader = (url: string) => Promise<{ document: unknown; documentUrl: string; contextUrl: null }>;

/** Resolves credential types and documents from the bundle, the store and the js-sdk's embedded set. */
export class Iden3Documents {
  private readonly bundled: BundledDocuments;

  constructor(
    private readonly store: WalletStore,
    private readonly sdk: Sdk,
  ) {
    this.bundled = bundledDocuments();
  }

  /**
   * Every issuable type: bundled first, then registered ones, then those of pinned schemas that
   * name their type and a context ($metadata.type and $metadata.uris.jsonLdContext).
   */
  types(): CredentialTypeInfo[] {
    const types = [...this.bundled.types];
    const add = (info: CredentialTypeInfo): void => {
      if (!types.some((known) => known.type === info.type)) types.push(info);
    };
    for (const record of this.store.list<CredentialTypeInfo>(DOCUMENTS_NS, 'type:')) add(record.value);
    for (const pinned of listPinnedDocuments(this.store)) {
      if (pinned.kind !== 'schema') continue;
      let schema: JsonSchemaDocument | undefined;
      try {
        schema = readPinnedDocument(this.store, pinned.url) as JsonSchemaDocument | undefined;
      } catch {
        continue; // a changed copy is refused when it is used
      }
      const type = schema?.$metadata?.type;
      const contextUrl = schema?.$metadata?.uris?.jsonLdContext;
      if (typeof type === 'string' && typeof contextUrl === 'string') add({ type, schemaUrl: pinned.url, contextUrl });
    }
    return types;
  }

  /** The type named `type`, or an UnprocessableError listing the known ones. */
  typeInfo(type: string): CredentialTypeInfo {
    const found = this.types().find((t) => t.type === type);
    if (found === undefined) {
      const known = this.types().map((t) => t.type);
      throw new UnprocessableError(
        `unknown credential type "${type}"${didYouMean(type, known)} (known: ${known.join(', ')}); give its JSON-LD context and JSON schema (vc issuer issue --context-file FILE --schema FILE), or pin them (vc documents add URL FILE)`,
        { field: 'type' },
      );
    }
    return found;
  }

  /**
   * The credentialSubject fields of `type` under the context `contextUrl`: the schema's
   * properties when the type's schema is known, else the terms the context gives the type;
   * undefined when the context is unknown or does not define the type.
   */
  fieldsOf(type: string, contextUrl: string): string[] | undefined {
    const info = this.findByContext(contextUrl, type);
    const fromSchema = info === undefined ? undefined : schemaFieldsOf(this.document(info.schemaUrl));
    if (fromSchema !== undefined && fromSchema.length > 0) return fromSchema;
    const context = this.document(contextUrl);
    return context === undefined ? undefined : contextFieldsOfType(context, type);
  }

  /**
   * True for a URL this class answers without the wallet: a bundled type's document or one the
   * js-sdk embeds. A pinned copy could never be read under such a URL.
   */
  isBundled(url: string): boolean {
    return this.bundled.documents.has(url) || this.embeddedUrls().has(url) || url === this.sdk.VerifiableConstants.AUTH.AUTH_BJJ_CREDENTIAL_SCHEMA_JSON_URL;
  }

  /** The URLs of the documents the js-sdk holds in memory (its cacheLoader downloads only others). */
  private embeddedUrls(): Set<string> {
    const { VerifiableConstants } = this.sdk;
    return new Set<string>([
      VerifiableConstants.JSONLD_SCHEMA.W3C_CREDENTIAL_2018,
      VerifiableConstants.JSONLD_SCHEMA.IDEN3_CREDENTIAL,
      VerifiableConstants.JSONLD_SCHEMA.IDEN3_DISPLAY_METHOD,
      VerifiableConstants.AUTH.AUTH_BJJ_CREDENTIAL_SCHEMA_JSONLD_URL,
    ]);
  }

  /** The type whose JSON-LD context is `contextUrl` and name `type`, if known. */
  findByContext(contextUrl: string, type: string): CredentialTypeInfo | undefined {
    return this.types().find((t) => t.contextUrl === contextUrl && t.type === type);
  }

  /**
   * Registers a user-provided type from its JSON schema (iden3 JsonSchema2023: its URL in $id or
   * $metadata.uris.jsonSchema, its context's URL in $metadata.uris.jsonLdContext, its type in
   * $metadata.type, else `typeHint`) and JSON-LD context documents. Returns the type info.
   */
  register(schema: unknown, context: unknown, source: { schema: string; context: string; type: string }, typeHint?: string): CredentialTypeInfo {
    const s = schema as JsonSchemaDocument;
    const schemaUrl = schemaUrlOf(schema);
    if (schemaUrl === undefined) {
      throw new UnprocessableError(`${source.schema}: expected an iden3 JSON schema naming its URL in $metadata.uris.jsonSchema (or $id)`, { field: 'schema' });
    }
    const contextUrl = s.$metadata?.uris?.jsonLdContext;
    if (typeof contextUrl !== 'string') {
      throw new UnprocessableError(`${source.schema}: field $metadata.uris.jsonLdContext is missing: expected the URL of the type's JSON-LD context (iden3 JSON schema)`, { field: 'schema' });
    }
    const ctx = context as { '@context'?: unknown };
    if (typeof ctx !== 'object' || ctx === null || ctx['@context'] === undefined) {
      throw new UnprocessableError(`${source.context}: a JSON-LD document with an @context is expected`, { field: 'context' });
    }
    const defined = contextTypes(context);
    const type = typeof s.$metadata?.type === 'string' ? s.$metadata.type : typeHint;
    if (type === undefined) {
      throw new UnprocessableError(
        `${source.schema}: field $metadata.type is missing (the official format may leave it out): give the type with ${source.type}${defined.length === 0 ? '' : ` (the context defines ${defined.join(', ')})`}`,
        { field: 'type' },
      );
    }
    if (typeHint !== undefined && typeHint !== type) {
      throw new UnprocessableError(`${source.type}: ${typeHint} is not the schema's type ${type} ($metadata.type of ${source.schema})`, { field: 'type' });
    }
    if (!contextDefinesType(context, type) && defined.length > 0) {
      throw new UnprocessableError(`${source.context}: does not define the type ${type}${didYouMean(type, defined)} (it defines ${defined.join(', ')})`, { field: 'context' });
    }
    const info: CredentialTypeInfo = { type, schemaUrl, contextUrl };
    this.store.transaction(() => {
      this.store.put(DOCUMENTS_NS, `url:${schemaUrl}`, schema);
      this.store.put(DOCUMENTS_NS, `url:${contextUrl}`, context);
      this.store.put(DOCUMENTS_NS, `type:${type}`, info);
    });
    return info;
  }

  /**
   * The document at `url` if known offline: bundled, registered, then pinned (a pinned copy that
   * changed since it was added is refused: PinnedDocumentChangedError).
   */
  document(url: string): unknown {
    return this.bundled.documents.get(url) ?? this.store.get<unknown>(DOCUMENTS_NS, `url:${url}`) ?? readPinnedDocument(this.store, url);
  }

  /** A jsonld document loader answering only from known documents (never the network). */
  loader(): DocumentLoader {
    const { VerifiableConstants } = this.sdk;
    // The js-sdk's cacheLoader holds these documents in memory; it only downloads URLs it lacks,
    // so it is called for exactly these.
    const embedded = this.embeddedUrls();
    const sdkLoader = this.sdk.cacheLoader();
    return async (url: string) => {
      // JSON-LD processing (a merklization's expansion) is a chain of promises that never waits
      // for I/O; each context it asks for lets the event loop run if it has waited a slice.
      await shareEventLoop();
      const known = this.document(url);
      if (known !== undefined) return { document: known, documentUrl: url, contextUrl: null };
      if (url === VerifiableConstants.AUTH.AUTH_BJJ_CREDENTIAL_SCHEMA_JSON_URL) {
        return { document: JSON.parse(VerifiableConstants.AUTH.AUTH_BJJ_CREDENTIAL_SCHEMA_JSON) as unknown, documentUrl: url, contextUrl: null };
      }
      if (embedded.has(url)) {
        const remote = await sdkLoader(url);
        return { document: remote.document as unknown, documentUrl: url, contextUrl: null };
      }
      throw unknownDocumentError(url, 'document', 'context');
    };
  }
}
