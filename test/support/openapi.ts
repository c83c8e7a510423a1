/**
 * Holds every response a test receives to lib/http/openapi.json, so the document and the code
 * cannot drift: an undocumented path, method or status, a missing required header, a body of the
 * wrong media type or with a member the schema does not have (`additionalProperties: false` where
 * the contract fixes the shape) fails the test. Used by the handler tests (through `invoke`) and
 * the end-to-end tests.
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { BASE_PATH } from '../../lib/http/base-path';
import document from '../../lib/http/openapi.json';

const DOCUMENT_ID = 'https://ocloud-notifications.example/openapi.json';

interface Header {
  required?: boolean;
  schema?: object;
}
interface ResponseSpec {
  headers?: Record<string, Header | { $ref: string }>;
  content?: Record<string, { schema: object }>;
  $ref?: string;
}
type Operation = { responses: Record<string, ResponseSpec> };
type PathItem = Record<string, Operation | unknown>;

const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
addFormats(ajv);
// The OpenAPI members around the schemas are not JSON Schema keywords: known, never applied.
ajv.addVocabulary([
  'openapi',
  'jsonSchemaDialect',
  'info',
  'servers',
  'tags',
  'paths',
  'webhooks',
  'components',
]);
ajv.addSchema({ ...document, $id: DOCUMENT_ID });

const compiled = new Map<string, ValidateFunction>();
function validatorFor(pointer: string): ValidateFunction {
  let validate = compiled.get(pointer);
  if (!validate) {
    validate = ajv.compile({ $ref: `${DOCUMENT_ID}#${pointer}` });
    compiled.set(pointer, validate);
  }
  return validate;
}

const pointerToken = (token: string) => token.replaceAll('~', '~0').replaceAll('/', '~1');

function resolve<T>(value: T | { $ref: string }): { value: T; pointer: string | undefined } {
  if (value && typeof value === 'object' && '$ref' in value && typeof value.$ref === 'string') {
    const pointer = value.$ref.slice(1);
    let node: unknown = document;
    for (const token of pointer.split('/').slice(1)) {
      node = (node as Record<string, unknown>)[token.replaceAll('~1', '/').replaceAll('~0', '~')];
    }
    return { value: node as T, pointer };
  }
  return { value: value as T, pointer: undefined };
}

const paths = document.paths as unknown as Record<string, PathItem>;
/** Literal paths win over templated ones, as API Gateway routes them. */
const templates = Object.keys(paths)
  .map((template) => ({
    template,
    literal: !template.includes('{'),
    pattern: new RegExp(
      `^${template
        .replace('{ResourceAddress}', '\u0000')
        .replace(/\{[^}]+\}/g, '[^/]+')
        .replace('\u0000', '.+')}$`,
    ),
  }))
  .sort((a, b) => Number(b.literal) - Number(a.literal));

export interface SeenResponse {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string | undefined>;
  rawBody: string;
}

/** The problems of one response to `method rawPath`, or [] when the document describes it exactly. */
export function openApiProblems(method: string, rawPath: string, response: SeenResponse): string[] {
  const path = rawPath.split('?')[0]?.replace(BASE_PATH, '') ?? '';
  const template = templates.find((t) => t.pattern.test(path))?.template;
  const what = `${method} ${rawPath} → ${response.status}`;
  const verb = (method === 'HEAD' ? 'get' : method).toLowerCase();
  let spec: ResponseSpec | undefined;
  let where: string;
  if (!template) {
    // Only the `$default` route answers outside the document: a 404 problem.
    if (response.status !== 404) return [`${what}: the path is not in the OpenAPI document`];
    spec = document.components.responses.NotFound as ResponseSpec;
    where = '/components/responses/NotFound';
  } else {
    const operation = paths[template]?.[verb] as Operation | undefined;
    const status = String(response.status);
    const key = operation && !(status in operation.responses) ? `${status[0]}XX` : status;
    where = `/paths/${pointerToken(template)}/${verb}/responses/${key}`;
    if (!operation) {
      if (response.status !== 405)
        return [`${what}: ${verb.toUpperCase()} ${template} is not in the OpenAPI document`];
      spec = document.components.responses.MethodNotAllowed as ResponseSpec;
      where = '/components/responses/MethodNotAllowed';
    } else {
      spec = operation.responses[key];
      if (!spec)
        return [`${what}: status ${response.status} is not documented for ${verb.toUpperCase()} ${template}`];
    }
  }
  const resolved = resolve(spec);
  if (resolved.pointer) where = resolved.pointer;
  return [
    ...headerProblems(what, resolved.value),
    ...bodyProblems(what, method, where, resolved.value, response),
  ];

  function headerProblems(label: string, r: ResponseSpec): string[] {
    const found: string[] = [];
    for (const [name, ref] of Object.entries(r.headers ?? {})) {
      const header = resolve<Header>(ref as Header);
      const value = response.headers[name.toLowerCase()];
      if (value === undefined) {
        if (header.value.required) found.push(`${label}: required header ${name} is missing`);
        continue;
      }
      if (!header.pointer) continue;
      const validate = validatorFor(`${header.pointer}/schema`);
      if (!validate(value)) found.push(`${label}: header ${name}: ${ajv.errorsText(validate.errors)}`);
    }
    return found;
  }
}

function bodyProblems(
  what: string,
  method: string,
  where: string,
  spec: ResponseSpec,
  response: SeenResponse,
): string[] {
  const contentType = response.headers['content-type']?.split(';')[0]?.trim();
  if (!spec.content) {
    const found: string[] = [];
    if (response.rawBody !== '')
      found.push(`${what}: the document says no body, got ${response.rawBody.slice(0, 80)}`);
    if (contentType) found.push(`${what}: the document says no body, but Content-Type is ${contentType}`);
    return found;
  }
  if (!contentType || !(contentType in spec.content)) {
    return [`${what}: Content-Type ${contentType} is not one of ${Object.keys(spec.content).join(', ')}`];
  }
  if (method === 'HEAD') return [];
  let body: unknown = response.rawBody;
  if (/json/.test(contentType)) {
    try {
      body = JSON.parse(response.rawBody);
    } catch {
      return [`${what}: the body is not JSON`];
    }
  }
  const validate = validatorFor(`${where}/content/${pointerToken(contentType)}/schema`);
  return validate(body) ? [] : [`${what}: ${ajv.errorsText(validate.errors, { dataVar: 'body' })}`];
}

/** Throws, naming every problem, unless the document describes the response exactly. */
export function assertDocumented(method: string, rawPath: string, response: SeenResponse): void {
  const problems = openApiProblems(method, rawPath, response);
  if (problems.length > 0)
    throw new Error(`The response does not match openapi.json:\n${problems.join('\n')}`);
}
