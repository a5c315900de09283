export {
  contextOf,
  DependsOnOtherFields,
  EachEntry,
  EachItem,
  IfPresent,
  isPlainObject,
  MapOf,
  Nested,
  RawField,
  toDto,
  Problem,
  WholeProblem,
  withContext,
} from './wire-decorators';
export { NOT_AN_OBJECT, parseWire, validationFailure, WIRE_VALIDATOR_OPTIONS } from './wire-validation';
export {
  FiniteNumber,
  HttpUrl,
  httpUrlProblem,
  ReadingStatement,
  readingStatementProblem,
  Nullable,
  Rules,
  NULLABLE_RULE,
  Required,
  ValidExpression,
  WithinMagnitude,
} from './rules';
