/**
 * A request id as the wire carries it: a decimal bigint in a string. Both RPC peers read ids with `BigInt`,
 * which throws on anything else.
 *
 * @internal
 */
import * as Schema from "effect/Schema"

export const RequestId = Schema.String.pipe(Schema.pattern(/^[0-9]{1,20}$/))

export const isRequestId = Schema.is(RequestId)
