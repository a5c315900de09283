"""Types of the Decision Service wire format, generated from contract/openapi.json. Do not edit by hand:
run `python3 sdk-python/scripts/generate_types.py` after the contract changes."""
# fmt: off
from __future__ import annotations

from typing import Any, Dict, List, Literal, NamedTuple, Optional, TypedDict, Union


class _ActionDtoRequired(TypedDict):
    name: str


class ActionDto(_ActionDtoRequired, total=False):
    model: str
    set: Dict[str, Union[float, RangeDto]]


class _ActionStatisticsResponseRequired(TypedDict):
    expected_loss: float
    max: float
    mean: float
    min: float
    name: str
    p5: float
    p50: float
    p95: float
    prob_best: float
    prob_positive: float
    std_dev: float
    std_error: float


class ActionStatisticsResponse(_ActionStatisticsResponseRequired, total=False):
    prob_target: float


class _AggregateDtoRequired(TypedDict):
    function: Literal['sum', 'avg', 'count', 'min', 'max']


class AggregateDto(_AggregateDtoRequired, total=False):
    column: str


class ApiKeyListResponse(TypedDict):
    keys: List[ApiKeyResponse]


class ApiKeyResponse(TypedDict):
    created_at: str
    device_limit: float
    expires_at: Optional[str]
    id: str
    key_prefix: str
    label: str
    last_used_at: Optional[str]
    role: Literal['viewer', 'member', 'admin', 'owner']


class _AuditActorResponseRequired(TypedDict):
    type: Literal['user', 'api_key', 'cli', 'system', 'anonymous']


class AuditActorResponse(_AuditActorResponseRequired, total=False):
    id: str


class AuditEventResponse(TypedDict):
    actor: AuditActorResponse
    created_at: str
    details: Dict[str, Optional[Union[str, float, bool]]]
    event: Literal['signup', 'provisioned', 'login_succeeded', 'login_failed', 'login_throttled', 'login_backstop_engaged', 'email_verified', 'password_reset_requested', 'password_reset', 'key_created', 'key_revoked', 'api_key_rejected', 'api_key_throttled', 'role_changed', 'outcome_reported', 'datasets_read']
    id: str
    ip: Optional[str]
    org_id: Optional[str]
    target: Optional[AuditTargetResponse]


class AuditLogResponse(TypedDict):
    events: List[AuditEventResponse]


class AuditTargetResponse(TypedDict):
    id: str
    type: str


class AzureConnectorConfig(TypedDict, total=False):
    'The config of connector_type azure.'
    account_url: str
    anonymous: bool
    blob: str
    blob_url: str
    connection_string: str
    container: str
    delimiter: str
    encoding: str
    file_type: Literal['csv', 'tsv', 'json', 'excel', 'parquet', 'xlsx', 'xls']
    has_header: bool
    json_path: str
    sheet: Union[str, int]


class _BatchErrorObjectRequired(TypedDict):
    code: str
    message: str


class BatchErrorObject(_BatchErrorObjectRequired, total=False):
    details: List[ErrorDetailDto]


class BigqueryConnectorConfig(TypedDict, total=False):
    'The config of connector_type bigquery.'
    ambient_credentials: bool
    dataset: str
    endpoint_url: str
    location: str
    project_id: str
    service_account_json: Union[Dict[str, Any], str]


class _BitbucketRepoConnectorConfigRequired(TypedDict):
    repo: str
    workspace: str


class BitbucketRepoConnectorConfig(_BitbucketRepoConnectorConfigRequired, total=False):
    'The config of connector_type bitbucket_repo.'
    base_url: str
    ref: str
    token: str


class BrowseColumnResponse(TypedDict):
    name: str
    type: str


class _BrowseItemResponseRequired(TypedDict):
    kind: str
    name: str


class BrowseItemResponse(_BrowseItemResponseRequired, total=False):
    columns: List[BrowseColumnResponse]
    rows: int
    schema: str
    size: int
    type: str


class BuildInfoResponse(TypedDict):
    package_version: str
    sbom_path: Optional[str]
    sbom_sha256: Optional[str]
    source_commit: Optional[str]


class CalibrationResponse(TypedDict):
    above_band: int
    below_band: int
    coverage: Optional[float]
    coverage_target: float
    coverage_tolerance: float
    inside_band: int
    judged: int
    min_outcomes: int
    outcome_reporter_roles: List[Literal['member', 'admin', 'owner']]
    outcomes: int
    policy_snapshot_id: str
    recommended_best: int
    status: Literal['calibrating', 'calibrated', 'degraded']
    trigger_id: str
    uncounted_outcomes: int
    window: int


class ClickhouseConnectorConfig(TypedDict, total=False):
    'The config of connector_type clickhouse.'
    connection_string: str
    database: str
    host: str
    password: str
    port: int
    secure: bool
    url: str
    user: str


class ClockRollbackResponse(TypedDict):
    latest_recorded: str
    wall_clock: str


class _ColumnMatchResponseRequired(TypedDict):
    column: str
    method: str
    token: str


class ColumnMatchResponse(_ColumnMatchResponseRequired, total=False):
    distance: float


class ColumnResponse(TypedDict):
    distinct_count: int
    distinct_count_estimated: bool
    exact_numeric: Literal['integer', 'decimal', None]
    max: Optional[Union[str, float, bool]]
    min: Optional[Union[str, float, bool]]
    name: str
    null_count: int
    role: Literal['id', 'time', 'measure', 'dimension']
    sample_values: List[Optional[Union[str, float, bool]]]
    type: Literal['integer', 'number', 'string', 'boolean', 'date', 'timestamp']
    values_truncated: bool


class _ColumnSourceDtoRequired(TypedDict):
    column: str
    dataset_id: str


class ColumnSourceDto(_ColumnSourceDtoRequired, total=False):
    where: List[WhereDto]


class CompactDatasetResponse(TypedDict):
    columns: int
    dataset_name: str
    id: str
    rows: int
    version: int


class _ConditionDtoRequired(TypedDict):
    operator: Literal['gt', 'gte', 'lt', 'lte', 'eq', 'ne']
    source: ConditionSourceDto
    threshold: float


class ConditionDto(_ConditionDtoRequired, total=False):
    for_s: int


class _ConditionSourceDtoRequired(TypedDict):
    kind: Literal['query', 'push']


class ConditionSourceDto(_ConditionSourceDtoRequired, total=False):
    dataset_id: str
    query: Dict[str, Any]
    value: ValueSelectorDto


class _ConfigFieldDescriptionRequired(TypedDict):
    name: str
    required: bool
    secret: bool
    type: Literal['string', 'integer', 'number', 'boolean', 'object', 'map', 'json']


class ConfigFieldDescription(_ConfigFieldDescriptionRequired, total=False):
    aliases: List[str]
    conditionally_required: Literal[True]
    default: Union[str, float, bool]
    description: str
    fields: List[ConfigFieldDescription]
    values: List[str]


class _ConnectDataDtoRequired(TypedDict):
    connection_id: str
    connection_type: str
    dataset_name: str


class ConnectDataDto(_ConnectDataDtoRequired, total=False):
    cypher: str
    index: str
    label: str
    max_keys: int
    path: str
    pattern: str
    provider: str
    query: str
    ref: str
    table: str
    visibility: Literal['private', 'shared']


class ConnectorBrowseResponse(TypedDict):
    connector_type: Literal['postgres', 'mysql', 'mssql', 'sqlite', 'clickhouse', 'redshift', 'snowflake', 'bigquery', 's3', 'gcs', 'azure', 'rest', 'file', 'neo4j', 'redis', 'elasticsearch', 'github_repo', 'gitlab_repo', 'bitbucket_repo', 'local_repo', 'repo_archive']
    discovery: Dict[str, Any]
    items: List[BrowseItemResponse]
    message: str
    total: int


class ConnectorListResponse(TypedDict):
    connectors: List[ConnectorResponse]
    next_cursor: Optional[str]


class _ConnectorResponseRequired(TypedDict):
    config: Dict[str, Any]
    connector_type: Literal['postgres', 'mysql', 'mssql', 'sqlite', 'clickhouse', 'redshift', 'snowflake', 'bigquery', 's3', 'gcs', 'azure', 'rest', 'file', 'neo4j', 'redis', 'elasticsearch', 'github_repo', 'gitlab_repo', 'bitbucket_repo', 'local_repo', 'repo_archive']
    created_at: str
    error_message: Optional[str]
    id: str
    last_tested_at: Optional[str]
    name: str
    status: Literal['untested', 'live', 'error']
    updated_at: str


class ConnectorResponse(_ConnectorResponseRequired, total=False):
    error_type: Literal['egress_blocked', 'auth_failed', 'unreachable', 'not_found', 'invalid_config', 'invalid_payload', 'path_not_allowed', 'unsafe_archive', 'timeout', 'remote_error', 'pagination_error', 'not_implemented', 'driver_error']
    provider: str


class _ConnectorTestResponseRequired(TypedDict):
    latency_ms: float
    message: str
    status: Literal['live', 'ok', 'error']
    success: bool


class ConnectorTestResponse(_ConnectorTestResponseRequired, total=False):
    details: Dict[str, Any]
    error_type: Literal['egress_blocked', 'auth_failed', 'unreachable', 'not_found', 'invalid_config', 'invalid_payload', 'path_not_allowed', 'unsafe_archive', 'timeout', 'remote_error', 'pagination_error', 'not_implemented', 'driver_error']
    recoverable: bool


class ConnectorTypeDescription(TypedDict):
    aliases: List[str]
    family: Literal['sql', 'object_store', 'api', 'file', 'graph', 'key_value', 'search', 'repository']
    fields: List[ConfigFieldDescription]
    open_config: bool
    type: Literal['postgres', 'mysql', 'mssql', 'sqlite', 'clickhouse', 'redshift', 'snowflake', 'bigquery', 's3', 'gcs', 'azure', 'rest', 'file', 'neo4j', 'redis', 'elasticsearch', 'github_repo', 'gitlab_repo', 'bitbucket_repo', 'local_repo', 'repo_archive']


class ConnectorTypesResponse(TypedDict):
    descriptions: List[ConnectorTypeDescription]
    types: List[Literal['postgres', 'mysql', 'mssql', 'sqlite', 'clickhouse', 'redshift', 'snowflake', 'bigquery', 's3', 'gcs', 'azure', 'rest', 'file', 'neo4j', 'redis', 'elasticsearch', 'github_repo', 'gitlab_repo', 'bitbucket_repo', 'local_repo', 'repo_archive', 'postgresql', 'rest_api', 'file_upload', 'csv', 'tsv', 'json', 'excel', 'xlsx', 'xls', 'parquet', 'elastic']]


class CorrelationDto(TypedDict):
    a: str
    b: str
    rank: float


class _CorrelationResponseRequired(TypedDict):
    a: str
    achieved: float
    b: str
    target: float


class CorrelationResponse(_CorrelationResponseRequired, total=False):
    adjusted: float


class _CreateApiKeyDtoRequired(TypedDict):
    label: str


class CreateApiKeyDto(_CreateApiKeyDtoRequired, total=False):
    device_limit: int
    expires_at: str
    role: Literal['viewer', 'member', 'admin', 'owner']


class _CreateConnectorRequestRequired(TypedDict):
    name: str


class CreateConnectorRequest(_CreateConnectorRequestRequired, total=False):
    config: Union[PostgresConnectorConfig, MysqlConnectorConfig, MssqlConnectorConfig, SqliteConnectorConfig, ClickhouseConnectorConfig, RedshiftConnectorConfig, SnowflakeConnectorConfig, BigqueryConnectorConfig, S3ConnectorConfig, GcsConnectorConfig, AzureConnectorConfig, RestConnectorConfig, FileConnectorConfig, Neo4jConnectorConfig, RedisConnectorConfig, ElasticsearchConnectorConfig, GithubRepoConnectorConfig, GitlabRepoConnectorConfig, BitbucketRepoConnectorConfig, LocalRepoConnectorConfig, RepoArchiveConnectorConfig]
    connector_type: str


class _CreateTriggerDtoRequired(TypedDict):
    condition: ConditionDto
    name: str
    simulation: SimulateRequest


class CreateTriggerDto(_CreateTriggerDtoRequired, total=False):
    auto_execute: bool
    cooldown_s: int
    enabled: bool
    execution_max_age_s: int
    execution_webhook_url: Optional[str]
    keep_firing_s: int
    plans: Dict[str, List[Dict[str, Any]]]
    schedule: ScheduleDto
    webhook_url: Optional[str]


class CreatedApiKeyResponse(TypedDict):
    created_at: str
    device_limit: float
    expires_at: Optional[str]
    id: str
    key_prefix: str
    label: str
    last_used_at: Optional[str]
    raw_key: str
    role: Literal['viewer', 'member', 'admin', 'owner']


class _DataConnectResponseRequired(TypedDict):
    connection_id: str
    dataset_name: str
    status: Literal['ready', 'failed']


class DataConnectResponse(_DataConnectResponseRequired, total=False):
    dataset_id: str
    message: str
    schema_summary: SchemaSummaryResponse
    version: int


DataVariableDto = TypedDict('DataVariableDto', {
    'distribution': "Literal['fit', 'empirical', 'normal', 'lognormal', 'gamma', 'weibull', 'exponential', 'uniform', 'triangular', 'pert']",
    'from': 'ColumnSourceDto',
}, total=False)


class DatasetArguments(TypedDict):
    dataset_id: str


class DatasetListResponse(TypedDict):
    datasets: List[Union[DatasetResponse, CompactDatasetResponse]]


class DatasetResponse(TypedDict):
    columns: int
    connection_id: Optional[str]
    connection_type: str
    dataset_id: str
    dataset_name: str
    formulas: List[FormulaResponse]
    id: str
    ingested_at: str
    owned: bool
    rows: int
    source: DatasetSourceResponse
    updated_at: str
    version: int
    visibility: Literal['private', 'shared']


class DatasetSchemaResponse(TypedDict):
    columns: List[ColumnResponse]
    dataset_id: str
    dataset_name: str
    formulas: List[FormulaResponse]
    query_hints: List[str]
    rows: int
    summaries: List[str]
    version: int


class _DatasetSourceResponseRequired(TypedDict):
    connector_id: str
    connector_name: str
    connector_type: str


class DatasetSourceResponse(_DatasetSourceResponseRequired, total=False):
    cypher: str
    index: str
    label: str
    max_keys: int
    path: str
    pattern: str
    query: str
    ref: str
    table: str


class DatasetSummaryResponse(TypedDict):
    column_names: List[str]
    columns: int
    connection_id: Optional[str]
    dataset_id: str
    dataset_name: str
    dimensions: List[str]
    formulas: List[str]
    id_columns: List[str]
    ingested_at: str
    measures: List[str]
    rows: int
    source: DatasetSourceResponse
    time_columns: List[str]
    version: int
    visibility: Literal['private', 'shared']


class DatasetVersionsResponse(TypedDict):
    datasets: List[DatasetResponse]


DateInterpretationResponse = TypedDict('DateInterpretationResponse', {
    'column': 'str',
    'from': 'str',
    'phrase': 'str',
    'to': 'str',
}, total=False)


class DeletedProviderKeyResponse(TypedDict):
    backend: str
    deleted: Literal[True]


class DeletedTriggerResponse(TypedDict):
    deleted: Literal[True]
    id: str


class DeliveryAttemptResponse(TypedDict):
    at: str
    duration_ms: int
    error: Optional[str]
    status_code: Optional[int]


class DeliveryListResponse(TypedDict):
    deliveries: List[DeliveryResponse]
    next_cursor: Optional[str]


class DeliveryResponse(TypedDict):
    attempts: List[DeliveryAttemptResponse]
    created_at: str
    delivered_at: Optional[str]
    event: str
    expires_at: Optional[str]
    fire_id: Optional[str]
    id: str
    job_id: Optional[str]
    next_attempt_at: Optional[str]
    status: Literal['pending', 'delivered', 'failed', 'blocked', 'gone', 'expired']
    url: str
    webhook_id: str


class DeviceLicenseKeyResponse(TypedDict):
    alg: Literal['EdDSA']
    kid: str
    public_key_pem: str


class DeviceListResponse(TypedDict):
    devices: List[DeviceResponse]


class DeviceResponse(TypedDict):
    bound_at: str
    device_id: str
    key_id: str
    last_seen_at: str
    platform: Optional[str]
    platform_version: Optional[str]
    registered_at: Optional[str]
    registration_id: str
    sdk_version: Optional[str]


class _ElasticsearchConnectorConfigRequired(TypedDict):
    url: str


class ElasticsearchConnectorConfig(_ElasticsearchConnectorConfigRequired, total=False):
    'The config of connector_type elasticsearch, elastic.'
    api_key: str
    ca_pem: str
    password: str
    username: str


class EmailVerifiedResponse(TypedDict):
    status: Literal['ok']
    verified: Literal[True]


class EmpiricalVariableDto(TypedDict):
    distribution: Literal['empirical']
    values: List[float]


class EnginePoolResponse(TypedDict):
    busy: int
    queued: int
    restarts: int
    size: int


class ErrorBody(TypedDict):
    error: ErrorObjectDto


class ErrorDetailDto(TypedDict):
    field: str
    problem: str


class _ErrorObjectDtoRequired(TypedDict):
    code: Literal['invalid_json', 'malformed_request', 'cannot_revoke_last_key', 'invalid_token', 'invalid_idempotency_key', 'authentication_required', 'invalid_api_key', 'invalid_session', 'invalid_credentials', 'invalid_signature', 'device_binding_required', 'device_binding_token_required', 'device_limit_reached', 'insufficient_role', 'forbidden', 'signup_disabled', 'not_entitled', 'device_identity_mismatch', 'invalid_device_binding_token', 'origin_not_allowed', 'not_found', 'api_key_not_found', 'device_not_found', 'dataset_not_found', 'provider_key_not_found', 'method_not_allowed', 'not_acceptable', 'request_timeout', 'email_taken', 'encryption_key_required', 'not_connected', 'conflict', 'dataset_not_converted', 'idempotency_key_in_use', 'payload_too_large', 'uri_too_long', 'unsupported_media_type', 'validation_failed', 'correlation_matrix_invalid', 'invalid_cursor', 'result_too_large', 'insufficient_data', 'column_not_numeric', 'invalid_type', 'idempotency_key_reused', 'invalid_device_id', 'query_not_understood', 'read_only_violation', 'runtime_execution_failed', 'rate_limited', 'headers_too_large', 'internal_error', 'connector_failed', 'engine_unavailable', 'engine_busy', 'runtime_unavailable', 'store_unavailable', 'mcp_session_limit_reached', 'runtime_timeout', 'engine_timeout', 'query_timeout', 'query_too_expensive', 'insufficient_storage']
    message: str
    request_id: str


class ErrorObjectDto(_ErrorObjectDtoRequired, total=False):
    details: List[ErrorDetailDto]


class EvaluationResponse(TypedDict):
    condition_met: Optional[bool]
    current_value: Optional[float]
    error: Optional[str]
    reading: Literal['value', 'no_data', 'error']
    would_fire: bool


class _ExecuteLibraryArgumentsRequired(TypedDict):
    function: str
    module: str


class ExecuteLibraryArguments(_ExecuteLibraryArgumentsRequired, total=False):
    args: Optional[Union[Dict[str, Any], List[Any], str, float, bool]]
    request_id: str


class _ExecutionPolicyDtoRequired(TypedDict):
    mode: Literal['calibrated_only', 'always', 'never']


class ExecutionPolicyDto(_ExecutionPolicyDtoRequired, total=False):
    min_outcomes: int
    outcome_reporter_roles: List[Literal['member', 'admin', 'owner']]


class ExecutionPolicyResponse(TypedDict):
    coverage_target: float
    coverage_tolerance: float
    created_at: str
    created_by: Optional[str]
    min_outcomes: int
    mode: Literal['calibrated_only', 'always', 'never']
    outcome_reporter_roles: List[Literal['member', 'admin', 'owner']]
    policy_snapshot_id: str


class FileConnectorConfig(TypedDict, total=False):
    'The config of connector_type file, file_upload, csv, tsv, json, excel, xlsx, xls, parquet.'
    content: str
    delimiter: str
    encoding: str
    file_path: str
    file_type: Literal['csv', 'tsv', 'json', 'excel', 'parquet', 'xlsx', 'xls']
    has_header: bool
    json_path: str
    sheet: Union[str, int]


class FireListResponse(TypedDict):
    fires: List[FireResponse]
    next_cursor: Optional[str]


class FireResponse(TypedDict):
    condition_met: bool
    confidence: Optional[float]
    current_value: float
    execution_status: Literal['dispatched', 'not_requested', 'skipped_uncalibrated', 'skipped_policy', 'skipped_no_url', None]
    expected_value: Optional[float]
    fire_id: str
    fired_at: str
    policy_snapshot_id: Optional[str]
    realized_value: Optional[float]
    recommended_action: Optional[str]
    reported_by: Optional[ReporterResponse]
    run_id: Optional[str]
    slot: str
    trigger_id: str


class _FireTriggerArgumentsRequired(TypedDict):
    trigger_id: str


class FireTriggerArguments(_FireTriggerArgumentsRequired, total=False):
    current_value: float


class FireTriggerDto(TypedDict, total=False):
    current_value: float


class FitCandidateResponse(TypedDict):
    aic: float
    family: Literal['normal', 'lognormal', 'gamma', 'weibull', 'exponential', 'uniform', 'triangular', 'pert']
    ks_statistic: float
    params: Dict[str, float]


class _FitDistributionArgumentsRequired(TypedDict):
    column: str
    dataset_id: str


class FitDistributionArguments(_FitDistributionArgumentsRequired, total=False):
    families: List[Literal['normal', 'lognormal', 'gamma', 'weibull', 'exponential', 'uniform', 'triangular', 'pert']]
    where: List[WhereDto]


class _FitRequestRequired(TypedDict):
    column: str


class FitRequest(_FitRequestRequired, total=False):
    families: List[Literal['normal', 'lognormal', 'gamma', 'weibull', 'exponential', 'uniform', 'triangular', 'pert']]
    where: List[WhereDto]


class FitResponse(TypedDict):
    best: FitCandidateResponse
    candidates: List[FitCandidateResponse]
    column: str
    dataset_id: str
    dataset_name: str
    n: float
    rows_matching: float
    sampled: bool
    version: float
    where: List[WhereDto]


class ForgotPasswordDto(TypedDict):
    email: str


class FormulaDto(TypedDict):
    expression: str
    name: str


class FormulaResponse(TypedDict):
    expression: str
    name: str
    type: Literal['number', 'boolean']


class _GcsConnectorConfigRequired(TypedDict):
    blob: str
    bucket: str


class GcsConnectorConfig(_GcsConnectorConfigRequired, total=False):
    'The config of connector_type gcs.'
    ambient_credentials: bool
    anonymous: bool
    credentials: Union[Dict[str, Any], str]
    delimiter: str
    encoding: str
    endpoint_url: str
    file_type: Literal['csv', 'tsv', 'json', 'excel', 'parquet', 'xlsx', 'xls']
    has_header: bool
    json_path: str
    project_id: str
    sheet: Union[str, int]


class _GithubRepoConnectorConfigRequired(TypedDict):
    owner: str
    repo: str


class GithubRepoConnectorConfig(_GithubRepoConnectorConfigRequired, total=False):
    'The config of connector_type github_repo.'
    base_url: str
    ref: str
    token: str


class _GitlabRepoConnectorConfigRequired(TypedDict):
    project: str


class GitlabRepoConnectorConfig(_GitlabRepoConnectorConfigRequired, total=False):
    'The config of connector_type gitlab_repo.'
    base_url: str
    ref: str
    token: str


class HealthResponse(TypedDict):
    status: Literal['ok']
    timestamp: str


class InboundAcceptedResponse(TypedDict):
    accepted: Literal[True]
    delivery_id: str
    duplicate: bool


class InboundDeliveryListResponse(TypedDict):
    deliveries: List[InboundDeliveryResponse]
    next_cursor: Optional[str]


class InboundDeliveryResponse(TypedDict):
    attempts: int
    delivery_id: str
    error: Optional[str]
    event: str
    processed_at: Optional[str]
    received_at: str
    status: Literal['received', 'processed', 'failed']


class InfrastructureResponse(TypedDict):
    build: BuildInfoResponse
    engine_mode: Literal['pool', 'subprocess_fallback', 'unavailable']
    engine_version: Optional[str]
    last_health_check: Optional[str]
    license: LicenseSummaryResponse
    node_version: str
    pool: EnginePoolResponse
    runtime_library: RuntimeLibraryStatusResponse
    tls: TlsSummaryResponse


class InlineConnectorRequest(TypedDict, total=False):
    config: Union[PostgresConnectorConfig, MysqlConnectorConfig, MssqlConnectorConfig, SqliteConnectorConfig, ClickhouseConnectorConfig, RedshiftConnectorConfig, SnowflakeConnectorConfig, BigqueryConnectorConfig, S3ConnectorConfig, GcsConnectorConfig, AzureConnectorConfig, RestConnectorConfig, FileConnectorConfig, Neo4jConnectorConfig, RedisConnectorConfig, ElasticsearchConnectorConfig, GithubRepoConnectorConfig, GitlabRepoConnectorConfig, BitbucketRepoConnectorConfig, LocalRepoConnectorConfig, RepoArchiveConnectorConfig]
    connector_type: str


class InputFitResponse(TypedDict):
    aic: float
    ks_statistic: float


class _InputProvenanceResponseRequired(TypedDict):
    distribution: str
    source: InputSourceResponse


class InputProvenanceResponse(_InputProvenanceResponseRequired, total=False):
    fit: InputFitResponse
    params: Dict[str, float]


class InputSourceResponse(TypedDict):
    column: str
    dataset_id: str
    dataset_name: str
    rows_matching: float
    rows_used: float
    sampled: bool
    version: float
    where: List[WhereDto]


class InterpretationResponse(TypedDict):
    dates: List[DateInterpretationResponse]
    defaults: List[str]
    matches: List[ColumnMatchResponse]
    pattern: str
    snapshot_time: str
    text: str


class JobErrorResponse(TypedDict):
    code: str
    message: str


class JobListResponse(TypedDict):
    jobs: List[JobResponse]
    next_cursor: Optional[str]


class _JobResponseRequired(TypedDict):
    callback_url: Optional[str]
    created_at: str
    finished_at: Optional[str]
    job_id: str
    run_id: Optional[str]
    started_at: Optional[str]
    status: Literal['queued', 'running', 'succeeded', 'failed', 'cancelled']


class JobResponse(_JobResponseRequired, total=False):
    error: JobErrorResponse
    result: SimulationResponse


class _JsonRpcErrorResponseRequired(TypedDict):
    code: int
    message: str


class JsonRpcErrorResponse(_JsonRpcErrorResponseRequired, total=False):
    data: Dict[str, Any]


class _JsonRpcResponseRequired(TypedDict):
    id: Optional[Union[str, int]]
    jsonrpc: Literal['2.0']


class JsonRpcResponse(_JsonRpcResponseRequired, total=False):
    error: JsonRpcErrorResponse
    result: Dict[str, Any]


class _LicenseResponseRequired(TypedDict):
    clock_rollback: Optional[ClockRollbackResponse]
    days_remaining: Optional[int]
    edition: str
    entitlements: List[Literal['simulation', 'jobs', 'webhooks', 'triggers', 'connectors', 'datasets', 'sql_reports', 'mcp', 'runtime_library']]
    expires_at: Optional[str]
    issued_at: Optional[str]
    license_id: Optional[str]
    licensee: Optional[str]
    not_before: Optional[str]
    status: Literal['active', 'expired', 'not_yet_valid', 'unlicensed']


class LicenseResponse(_LicenseResponseRequired, total=False):
    caps: Dict[str, float]


class LicenseSummaryResponse(TypedDict):
    edition: str
    status: Literal['active', 'expired', 'not_yet_valid', 'unlicensed']


class ListDataArguments(TypedDict, total=False):
    compact: bool
    search: str


class ListLibrariesArguments(TypedDict, total=False):
    limit: int
    search: str


class ListTriggersArguments(TypedDict, total=False):
    cursor: str
    limit: int


class _LocalRepoConnectorConfigRequired(TypedDict):
    path: str


class LocalRepoConnectorConfig(_LocalRepoConnectorConfigRequired, total=False):
    'The config of connector_type local_repo.'
    ref: str


class LoginDto(TypedDict):
    email: str
    password: str


class LoginResponse(TypedDict):
    access_token: str
    expires_in: float
    token_type: Literal['bearer']


class McpToolListResponse(TypedDict):
    tools: List[McpToolResponse]


class McpToolResponse(TypedDict):
    description: str
    input_schema: Dict[str, Any]
    name: str


class MeKeyResponse(TypedDict):
    id: str
    label: str
    role: Literal['viewer', 'member', 'admin', 'owner']


class MeOrganizationResponse(TypedDict):
    id: str
    is_operator: bool
    name: str


class _MeResponseRequired(TypedDict):
    auth: Literal['api_key', 'session']
    organization: MeOrganizationResponse


class MeResponse(_MeResponseRequired, total=False):
    device_id: str
    key: MeKeyResponse
    user: UserResponse


class MssqlConnectorConfig(TypedDict, total=False):
    'The config of connector_type mssql.'
    connection_string: str
    database: str
    encrypt: bool
    host: str
    password: str
    port: int
    schema: str
    trust_server_certificate: bool
    user: str


class MysqlConnectorConfig(TypedDict, total=False):
    'The config of connector_type mysql.'
    connection_string: str
    database: str
    host: str
    password: str
    port: int
    schema: str
    user: str


class _Neo4jConnectorConfigRequired(TypedDict):
    url: str
    username: str


class Neo4jConnectorConfig(_Neo4jConnectorConfigRequired, total=False):
    'The config of connector_type neo4j.'
    database: str
    password: str


NoToolArguments = Dict[str, Any]


class _OrderTermDtoRequired(TypedDict):
    column: str


class OrderTermDto(_OrderTermDtoRequired, total=False):
    direction: Literal['asc', 'desc']


class OrganizationResponse(TypedDict):
    id: str
    name: str


class OutcomeResponse(TypedDict):
    action_values: Optional[Dict[str, float]]
    best_action: Optional[str]
    fire_id: str
    inside_band: bool
    predicted: PredictedBandResponse
    realized_value: float
    realized_variables: Optional[Dict[str, float]]
    recommended_action: str
    recommended_was_best: Optional[bool]
    reported_at: str
    reported_by: Optional[ReporterResponse]
    trigger_id: str


class ParamsVariableDto(TypedDict):
    distribution: Literal['normal', 'lognormal', 'gamma', 'weibull', 'exponential', 'uniform', 'triangular', 'pert']
    params: Dict[str, float]


class PasswordResetRequestedResponse(TypedDict):
    message: str
    status: Literal['ok']


class PasswordResetResponse(TypedDict):
    sessions_revoked: Literal[True]
    status: Literal['ok']


PlanAggregateResponse = TypedDict('PlanAggregateResponse', {
    'as': 'str',
    'column': 'Optional[str]',
    'function': "Literal['sum', 'avg', 'count', 'min', 'max']",
}, total=False)


class _PlanConditionResponseRequired(TypedDict):
    column: str
    op: Literal['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'contains', 'starts_with', 'is_null', 'not_null']


class PlanConditionResponse(_PlanConditionResponseRequired, total=False):
    value: Union[str, float, bool, List[Optional[Union[str, float, bool]]]]


class PlanOrderTermResponse(TypedDict):
    column: str
    direction: Literal['asc', 'desc']


class PostgresConnectorConfig(TypedDict, total=False):
    'The config of connector_type postgres, postgresql.'
    connection_string: str
    database: str
    host: str
    password: str
    port: int
    schema: str
    ssl_mode: Literal['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full']
    user: str


class PredictedBandResponse(TypedDict):
    mean: float
    p5: float
    p95: float
    std_dev: float


class PrivacyReportListResponse(TypedDict):
    next_cursor: Optional[str]
    reports: List[PrivacyReportSummaryResponse]


class _PrivacyReportResponseRequired(TypedDict):
    appliance: ReportApplianceResponse
    chain: ReportChainResponse
    cloud_free: bool
    cloud_free_findings: List[str]
    egress_24h: ReportEgressResponse
    generated_at: str
    license: ReportLicenseResponse
    policy: ReportPolicyResponse
    report_version: int
    signature: ReportSignatureResponse
    window: ReportWindowResponse


class PrivacyReportResponse(_PrivacyReportResponseRequired, total=False):
    previous_report_hash: Optional[str]
    report_id: str
    sequence: int
    store: ReportStoreResponse
    telemetry: Dict[str, bool]
    tls: TlsSummaryResponse


class PrivacyReportSummaryResponse(TypedDict):
    generated_at: str
    id: str
    previous_report_hash: Optional[str]
    sha256: str


class ProviderKeyListResponse(TypedDict):
    keys: List[ProviderKeyResponse]


class ProviderKeyResponse(TypedDict):
    backend: str
    updated_at: str


class QueryBatchError(TypedDict):
    error: BatchErrorObject


class QueryBatchRequest(TypedDict):
    queries: List[QueryRequest]


class QueryBatchResponse(TypedDict):
    results: List[Union[QueryResponse, QueryBatchError]]


class _QueryPlanResponseRequired(TypedDict):
    aggregates: List[PlanAggregateResponse]
    answered_from: Literal['dataset', 'summary']
    dataset_id: str
    dataset_name: str
    group_by: List[str]
    kind: Literal['rows', 'aggregate']
    limit: float
    offset: float
    order_by: List[PlanOrderTermResponse]
    select: List[str]
    sql: str
    version: float
    where: List[PlanConditionResponse]


class QueryPlanResponse(_QueryPlanResponseRequired, total=False):
    interpretation: InterpretationResponse


class _QueryRequestRequired(TypedDict):
    dataset_id: str


class QueryRequest(_QueryRequestRequired, total=False):
    aggregates: List[AggregateDto]
    group_by: List[str]
    limit: int
    offset: int
    order_by: List[Union[str, OrderTermDto]]
    query: str
    select: List[str]
    where: List[WhereDto]


class QueryResponse(TypedDict):
    columns: List[ResultColumnResponse]
    plan: QueryPlanResponse
    row_count: float
    rows: List[Dict[str, Optional[Union[str, float, bool]]]]
    truncated: bool


class _RangeDtoRequired(TypedDict):
    high: float
    low: float


class RangeDto(_RangeDtoRequired, total=False):
    distribution: Literal['uniform', 'triangular', 'pert', 'normal', 'lognormal']
    mode: float


class ReadinessResponse(TypedDict):
    status: Literal['ready', 'not_ready']
    storage: StorageStatusResponse
    store: StoreStatusResponse


class RedisConnectorConfig(TypedDict, total=False):
    'The config of connector_type redis.'
    db: int
    host: str
    password: str
    port: int
    tls: bool
    username: str


class RedshiftConnectorConfig(TypedDict, total=False):
    'The config of connector_type redshift.'
    connection_string: str
    database: str
    host: str
    password: str
    port: int
    schema: str
    ssl_mode: Literal['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full']
    user: str


class RegistrationResponse(TypedDict):
    device_id: str
    expires_at: str
    license_token: str
    registration_id: str


class RepoArchiveConnectorConfig(TypedDict, total=False):
    'The config of connector_type repo_archive.'
    content: str
    file_name: str
    file_path: str


class _ReportApplianceResponseRequired(TypedDict):
    build: str
    version: str


class ReportApplianceResponse(_ReportApplianceResponseRequired, total=False):
    sbom_sha256: Optional[str]
    source_commit: Optional[str]


class _ReportChainResponseRequired(TypedDict):
    algorithm: str
    head_hash: str
    length: int
    verified: bool


class ReportChainResponse(_ReportChainResponseRequired, total=False):
    broken_at: int


class ReportDestinationResponse(TypedDict):
    addresses: List[str]
    allowed: int
    denied: int
    first_seen: str
    host: str
    last_seen: str
    port: int
    purpose: str


class _ReportEgressResponseRequired(TypedDict):
    allowed: int
    attempts: int
    denied: int
    destinations: List[ReportDestinationResponse]


class ReportEgressResponse(_ReportEgressResponseRequired, total=False):
    hourly: List[ReportHourResponse]
    nodes: List[ReportNodeResponse]


class ReportHourResponse(TypedDict):
    allowed: int
    denied: int
    start: str


class ReportLicenseResponse(TypedDict):
    edition: str
    status: str


class ReportNodeResponse(TypedDict):
    allowed: int
    denied: int
    node: Optional[str]


class _ReportOutcomeArgumentsRequired(TypedDict):
    fire_id: str
    realized_value: float
    trigger_id: str


class ReportOutcomeArguments(_ReportOutcomeArgumentsRequired, total=False):
    realized_variables: Dict[str, float]


class _ReportOutcomeDtoRequired(TypedDict):
    realized_value: float


class ReportOutcomeDto(_ReportOutcomeDtoRequired, total=False):
    realized_variables: Dict[str, float]


class ReportPolicyResponse(TypedDict):
    mode: str
    rules: List[str]
    sha256: str


class ReportPublicKeyResponse(TypedDict):
    kid: str
    public_key_pem: str


class ReportSignatureResponse(TypedDict):
    alg: str
    kid: str
    value: str


class ReportStoreResponse(TypedDict):
    composed_on: str
    datasets_dir: str
    judged_by_egress_policy: Literal[False]
    keys_dir: str
    kind: Literal['sqlite', 'postgresql']
    location: str
    shared_by_replicas: bool


class ReportTableResponse(TypedDict):
    dataset_id: str
    names: List[str]


class ReportWindowResponse(TypedDict):
    end: str
    start: str


class ReporterResponse(TypedDict):
    id: str
    role: Literal['viewer', 'member', 'admin', 'owner']


class ResetPasswordDto(TypedDict):
    new_password: str
    token: str


class RestAuthFields(TypedDict, total=False):
    api_key: str
    api_key_header: str
    mode: Literal['none', 'token', 'bearer', 'oauth', 'basic', 'api_key']
    password: str
    token: str
    username: str


class RestConnectorConfig(TypedDict, total=False):
    'The config of connector_type rest, rest_api.'
    api_key: str
    api_key_header: str
    auth: RestAuthFields
    auth_type: Literal['none', 'bearer', 'api_key', 'basic']
    base_url: str
    body: Union[Dict[str, Any], List[Any], str, float, bool]
    data_path: str
    headers: Dict[str, str]
    health_path: str
    method: Literal['GET', 'POST']
    pagination: RestPaginationFields
    params: Dict[str, Union[str, float, bool]]
    password: str
    timeout: float
    token: str
    url: str
    username: str


class _RestPaginationFieldsRequired(TypedDict):
    max_pages: int
    mode: Literal['page_number', 'cursor_path']


class RestPaginationFields(_RestPaginationFieldsRequired, total=False):
    cursor_param: str
    has_more_path: str
    next_link_rel: str
    next_path: str
    page_param: str
    page_size: int
    page_size_param: str
    start_page: int


class ResultColumnResponse(TypedDict):
    name: str
    type: Literal['integer', 'number', 'string', 'boolean', 'date', 'timestamp']


class RevokedApiKeyResponse(TypedDict):
    id: str
    revoked: Literal[True]
    revoked_at: str


class RevokedDeviceResponse(TypedDict):
    registration_id: str
    revoked: Literal[True]
    revoked_at: str


class RotatedSigningSecretResponse(TypedDict):
    previous_valid_until: str
    signing_secret: str


class _RuntimeExecutionResponseRequired(TypedDict):
    args: Optional[Union[Dict[str, Any], List[Any], str, float, bool]]
    engine_used: str
    function: str
    latency_ms: float
    module: str
    result: Optional[Union[Dict[str, Any], List[Any], str, float, bool]]
    success: Literal[True]


class RuntimeExecutionResponse(_RuntimeExecutionResponseRequired, total=False):
    request_id: Optional[Union[Dict[str, Any], List[Any], str, float, bool]]


class _RuntimeHealthResponseRequired(TypedDict):
    checked_at: str
    modules: List[RuntimeModuleHealthResponse]
    pid: Optional[int]
    restarts: int
    status: Literal['ok', 'degraded', 'unavailable']
    supervised: bool
    uptime_s: Optional[float]
    version: Optional[str]


class RuntimeHealthResponse(_RuntimeHealthResponseRequired, total=False):
    message: str


class RuntimeLibraryListingResponse(TypedDict):
    libraries: List[RuntimeModuleResponse]
    module_count: int
    runtime_health: RuntimeListingHealth


class RuntimeLibraryStatusResponse(TypedDict):
    last_health_check: str
    restarts: int
    status: Literal['ok', 'degraded', 'unavailable']
    supervised: bool
    version: Optional[str]


class _RuntimeListingHealthRequired(TypedDict):
    status: str


class RuntimeListingHealth(_RuntimeListingHealthRequired, total=False):
    version: str


class RuntimeManifestResponse(TypedDict):
    modules: List[RuntimeModuleResponse]
    version: str


class RuntimeModuleHealthResponse(TypedDict):
    functions: List[str]
    name: str
    status: str


class RuntimeModuleResponse(TypedDict):
    engine: str
    functions: List[str]
    name: str


class _S3ConnectorConfigRequired(TypedDict):
    bucket: str
    key: str


class S3ConnectorConfig(_S3ConnectorConfigRequired, total=False):
    'The config of connector_type s3.'
    ambient_credentials: bool
    anonymous: bool
    aws_access_key_id: str
    aws_secret_access_key: str
    aws_session_token: str
    delimiter: str
    encoding: str
    endpoint_url: str
    file_type: Literal['csv', 'tsv', 'json', 'excel', 'parquet', 'xlsx', 'xls']
    has_header: bool
    json_path: str
    region: str
    sheet: Union[str, int]


class _ScenarioDtoRequired(TypedDict):
    objective: Literal['maximize_net_value', 'maximize_value', 'minimize_cost']
    variables: Dict[str, Union[RangeDto, ParamsVariableDto, EmpiricalVariableDto, DataVariableDto]]


class ScenarioDto(_ScenarioDtoRequired, total=False):
    actions: List[ActionDto]
    adjust_correlations: bool
    correlations: List[CorrelationDto]
    correlations_from_data: bool
    model: str
    target: float


class _ScheduleDtoRequired(TypedDict):
    interval_s: float


class ScheduleDto(_ScheduleDtoRequired, total=False):
    catch_up_window_s: int


class SchemaSummaryResponse(TypedDict):
    columns: int
    rows: int


class _SensitivityResponseRequired(TypedDict):
    correlation: float
    variable: str


class SensitivityResponse(_SensitivityResponseRequired, total=False):
    swing: float


class SetFormulasDto(TypedDict):
    formulas: List[FormulaDto]


class SetProviderKeyDto(TypedDict):
    api_key: str
    backend: str


class SigningSecretResponse(TypedDict):
    signing_secret: str


class _SignupDtoRequired(TypedDict):
    email: str
    name: str
    password: str


class SignupDto(_SignupDtoRequired, total=False):
    organization_name: str


class SignupResponse(TypedDict):
    api_key: CreatedApiKeyResponse
    organization: OrganizationResponse
    user: UserResponse


class _SimulateRequestRequired(TypedDict):
    scenario: ScenarioDto


class SimulateRequest(_SimulateRequestRequired, total=False):
    detail: Literal['summary', 'full']
    mode: Literal['auto']
    runs: int
    seed: Union[int, str]


class _SimulationResponseRequired(TypedDict):
    actions: List[ActionStatisticsResponse]
    compute_ms: float
    confidence: float
    engine_mode: Literal['pool', 'subprocess_fallback']
    engine_version: str
    evpi: float
    expected_value: float
    objective: Literal['maximize_net_value', 'maximize_value', 'minimize_cost']
    recommended_action: str
    run_id: str
    runs: float
    seed: Union[int, str]
    sensitivity: List[SensitivityResponse]


class SimulationResponse(_SimulationResponseRequired, total=False):
    correlations: List[CorrelationResponse]
    correlations_adjusted: bool
    inputs: Dict[str, InputProvenanceResponse]


class SnowflakeConnectorConfig(TypedDict, total=False):
    'The config of connector_type snowflake.'
    access_url: str
    account: str
    connection_string: str
    database: str
    password: str
    role: str
    schema: str
    user: str
    warehouse: str


class _SqlReportRequestRequired(TypedDict):
    sql: str


class SqlReportRequest(_SqlReportRequestRequired, total=False):
    dataset_id: str
    dataset_ids: List[str]


class SqlReportResponse(TypedDict):
    columns: List[str]
    elapsed_ms: float
    row_count: float
    rows: List[Dict[str, Optional[Union[str, float, bool]]]]
    tables: List[ReportTableResponse]
    truncated: bool


class SqliteConnectorConfig(TypedDict, total=False):
    'The config of connector_type sqlite.'
    connection_string: str
    path: str


class StorageStatusResponse(TypedDict):
    free_bytes: int
    min_free_bytes: int
    status: Literal['ok', 'degraded']


class StoreStatusResponse(TypedDict):
    status: Literal['ok', 'unavailable']


class _SubmitJobDtoRequired(TypedDict):
    request: SimulateRequest


class SubmitJobDto(_SubmitJobDtoRequired, total=False):
    callback_url: str


class SubmittedJobResponse(TypedDict):
    job_id: str
    poll_url: str
    status: Literal['queued', 'running', 'succeeded', 'failed', 'cancelled']


class TlsSummaryResponse(TypedDict):
    expires_at: Optional[str]
    fingerprint_sha256: Optional[str]
    mode: Literal['off', 'self-signed', 'files']
    origin: Literal['generated', 'installed', 'files', None]
    subject: Optional[str]


class TriggerListResponse(TypedDict):
    next_cursor: Optional[str]
    triggers: List[TriggerResponse]


class TriggerResponse(TypedDict):
    auto_execute: bool
    condition: ConditionDto
    cooldown_s: float
    created_at: str
    enabled: bool
    execution_max_age_s: float
    execution_webhook_url: Optional[str]
    id: str
    keep_firing_s: float
    last_error: Optional[str]
    last_evaluated_at: Optional[str]
    last_fire_id: Optional[str]
    name: str
    next_evaluation_at: Optional[str]
    pending_since: Optional[str]
    plans: Dict[str, List[Dict[str, Any]]]
    schedule: Optional[ScheduleDto]
    simulation: SimulateRequest
    state: Literal['inactive', 'pending', 'firing', 'recovering', 'no_data', 'error', 'disabled']
    updated_at: str
    webhook_url: Optional[str]


class UpdateConnectorRequest(TypedDict, total=False):
    config: Union[PostgresConnectorConfig, MysqlConnectorConfig, MssqlConnectorConfig, SqliteConnectorConfig, ClickhouseConnectorConfig, RedshiftConnectorConfig, SnowflakeConnectorConfig, BigqueryConnectorConfig, S3ConnectorConfig, GcsConnectorConfig, AzureConnectorConfig, RestConnectorConfig, FileConnectorConfig, Neo4jConnectorConfig, RedisConnectorConfig, ElasticsearchConnectorConfig, GithubRepoConnectorConfig, GitlabRepoConnectorConfig, BitbucketRepoConnectorConfig, LocalRepoConnectorConfig, RepoArchiveConnectorConfig]
    name: str


class UpdateTriggerDto(TypedDict, total=False):
    auto_execute: bool
    condition: ConditionDto
    cooldown_s: int
    enabled: bool
    execution_max_age_s: int
    execution_webhook_url: Optional[str]
    keep_firing_s: int
    name: str
    plans: Dict[str, List[Dict[str, Any]]]
    schedule: Optional[ScheduleDto]
    simulation: SimulateRequest
    webhook_url: Optional[str]


class UploadedFile(TypedDict):
    bytes: int
    file_path: str
    sha256: str


class UserResponse(TypedDict):
    email: str
    email_verified: bool
    id: str
    name: str
    role: Literal['viewer', 'member', 'admin', 'owner']


class _ValueSelectorDtoRequired(TypedDict):
    column: str


class ValueSelectorDto(_ValueSelectorDtoRequired, total=False):
    aggregate: Literal['first', 'last', 'sum', 'avg', 'min', 'max', 'count']


class WebhookTestRequest(TypedDict):
    callback_url: str


class WebhookTestResponse(TypedDict):
    message: str
    status_code: int
    success: bool


class _WhereDtoRequired(TypedDict):
    column: str
    op: Literal['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'contains', 'starts_with', 'is_null', 'not_null']


class WhereDto(_WhereDtoRequired, total=False):
    operator: Literal['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'contains', 'starts_with', 'is_null', 'not_null']
    value: Union[str, float, bool, List[Union[str, float, bool]]]


class Operation(NamedTuple):
    method: str
    path: str
    request: Optional[str]
    """The JSON request body's type name, if the operation takes one."""
    response: Optional[str]
    """The JSON answer's type name, if the success answer is JSON."""


OPERATIONS: Dict[str, Operation] = {
    'ApiKeys_create': Operation('POST', '/v1/api-keys', 'CreateApiKeyDto', 'CreatedApiKeyResponse'),
    'ApiKeys_list': Operation('GET', '/v1/api-keys', None, 'ApiKeyListResponse'),
    'ApiKeys_revoke': Operation('DELETE', '/v1/api-keys/{key_id}', None, 'RevokedApiKeyResponse'),
    'Audit_list': Operation('GET', '/v1/audit-log', None, 'AuditLogResponse'),
    'Auth_forgotPassword': Operation('POST', '/auth/forgot-password', 'ForgotPasswordDto', 'PasswordResetRequestedResponse'),
    'Auth_login': Operation('POST', '/auth/login', 'LoginDto', 'LoginResponse'),
    'Auth_resetPassword': Operation('POST', '/auth/reset-password', 'ResetPasswordDto', 'PasswordResetResponse'),
    'Auth_resetPasswordPage': Operation('GET', '/auth/reset-password', None, None),
    'Auth_signup': Operation('POST', '/auth/signup', 'SignupDto', 'SignupResponse'),
    'Auth_verify': Operation('GET', '/auth/verify', None, 'EmailVerifiedResponse'),
    'Connectors_browse': Operation('GET', '/v1/connectors/{id}/browse', None, 'ConnectorBrowseResponse'),
    'Connectors_browseInline': Operation('POST', '/v1/connectors/browse', 'InlineConnectorRequest', 'ConnectorBrowseResponse'),
    'Connectors_create': Operation('POST', '/v1/connectors', 'CreateConnectorRequest', 'ConnectorResponse'),
    'Connectors_get': Operation('GET', '/v1/connectors/{id}', None, 'ConnectorResponse'),
    'Connectors_list': Operation('GET', '/v1/connectors', None, 'ConnectorListResponse'),
    'Connectors_remove': Operation('DELETE', '/v1/connectors/{id}', None, None),
    'Connectors_test': Operation('POST', '/v1/connectors/{id}/test', None, 'ConnectorTestResponse'),
    'Connectors_testInline': Operation('POST', '/v1/connectors/test', 'InlineConnectorRequest', 'ConnectorTestResponse'),
    'Connectors_types': Operation('GET', '/v1/connectors/types', None, 'ConnectorTypesResponse'),
    'Connectors_update': Operation('PATCH', '/v1/connectors/{id}', 'UpdateConnectorRequest', 'ConnectorResponse'),
    'Connectors_upload': Operation('POST', '/v1/connectors/uploads', None, 'UploadedFile'),
    'Contract_document': Operation('GET', '/v1/openapi.json', None, 'Dict[str, Any]'),
    'DataFit_fit': Operation('POST', '/v1/data/{id}/fit', 'FitRequest', 'FitResponse'),
    'Datasets_connect': Operation('POST', '/v1/data/connect', 'ConnectDataDto', 'DataConnectResponse'),
    'Datasets_delete': Operation('DELETE', '/v1/data/{id}', None, None),
    'Datasets_get': Operation('GET', '/v1/data/{id}', None, 'DatasetResponse'),
    'Datasets_list': Operation('GET', '/v1/data', None, 'DatasetListResponse'),
    'Datasets_schema': Operation('GET', '/v1/data/{id}/schema', None, 'DatasetSchemaResponse'),
    'Datasets_setFormulas': Operation('PUT', '/v1/data/{id}/formulas', 'SetFormulasDto', 'DatasetSchemaResponse'),
    'Datasets_summary': Operation('GET', '/v1/data/{id}/summary', None, 'DatasetSummaryResponse'),
    'Datasets_versions': Operation('GET', '/v1/data/{id}/versions', None, 'DatasetVersionsResponse'),
    'Devices_licenseKey': Operation('GET', '/v1/device/license-key', None, 'DeviceLicenseKeyResponse'),
    'Devices_list': Operation('GET', '/v1/device/list', None, 'DeviceListResponse'),
    'Devices_register': Operation('POST', '/v1/device/register', None, 'RegistrationResponse'),
    'Devices_revoke': Operation('DELETE', '/v1/device/{registrationId}', None, 'RevokedDeviceResponse'),
    'ExecutionPolicy_get': Operation('GET', '/v1/execution-policy', None, 'ExecutionPolicyResponse'),
    'ExecutionPolicy_set': Operation('PUT', '/v1/execution-policy', 'ExecutionPolicyDto', 'ExecutionPolicyResponse'),
    'ExecutionPolicy_snapshot': Operation('GET', '/v1/execution-policy/snapshots/{id}', None, 'ExecutionPolicyResponse'),
    'Health_health': Operation('GET', '/v1/health', None, 'HealthResponse'),
    'Health_prometheus': Operation('GET', '/metrics', None, None),
    'Health_ready': Operation('GET', '/v1/ready', None, 'ReadinessResponse'),
    'Infrastructure_report': Operation('GET', '/v1/infrastructure', None, 'InfrastructureResponse'),
    'Jobs_cancel': Operation('DELETE', '/v1/jobs/{id}', None, 'JobResponse'),
    'Jobs_get': Operation('GET', '/v1/jobs/{id}', None, 'JobResponse'),
    'Jobs_list': Operation('GET', '/v1/jobs', None, 'JobListResponse'),
    'Jobs_submit': Operation('POST', '/v1/jobs', 'SubmitJobDto', 'SubmittedJobResponse'),
    'Licensing_show': Operation('GET', '/v1/license', None, 'LicenseResponse'),
    'Mcp_delete': Operation('DELETE', '/mcp', None, None),
    'Mcp_get': Operation('GET', '/mcp', None, None),
    'Mcp_messages': Operation('POST', '/mcp/messages', None, None),
    'Mcp_post': Operation('POST', '/mcp', None, 'JsonRpcResponse'),
    'Mcp_sse': Operation('GET', '/mcp/sse', None, None),
    'Mcp_tools': Operation('GET', '/mcp/tools', None, 'McpToolListResponse'),
    'Me_me': Operation('GET', '/v1/me', None, 'MeResponse'),
    'PrivacyReports_get': Operation('GET', '/v1/admin/privacy-reports/{id}', None, 'PrivacyReportResponse'),
    'PrivacyReports_list': Operation('GET', '/v1/admin/privacy-reports', None, 'PrivacyReportListResponse'),
    'Privacy_publicKey': Operation('GET', '/v1/admin/privacy-report/public-key', None, 'ReportPublicKeyResponse'),
    'Privacy_report': Operation('GET', '/v1/admin/privacy-report', None, 'PrivacyReportResponse'),
    'ProviderKeys_delete': Operation('DELETE', '/v1/provider-keys/{backend}', None, 'DeletedProviderKeyResponse'),
    'ProviderKeys_list': Operation('GET', '/v1/provider-keys', None, 'ProviderKeyListResponse'),
    'ProviderKeys_set': Operation('POST', '/v1/provider-keys', 'SetProviderKeyDto', 'ProviderKeyResponse'),
    'Query_batch': Operation('POST', '/v1/query/batch', 'QueryBatchRequest', 'QueryBatchResponse'),
    'Query_query': Operation('POST', '/v1/query', 'QueryRequest', 'QueryResponse'),
    'Query_sql': Operation('POST', '/v1/query/sql', 'SqlReportRequest', 'SqlReportResponse'),
    'Repohost_list': Operation('GET', '/v1/webhooks/inbound', None, 'InboundDeliveryListResponse'),
    'Repohost_receive': Operation('POST', '/webhooks/repohost', None, 'InboundAcceptedResponse'),
    'RuntimeLibrary_health': Operation('GET', '/v1/libraries/health', None, 'RuntimeHealthResponse'),
    'RuntimeLibrary_manifest': Operation('GET', '/v1/runtime/manifest', None, 'RuntimeManifestResponse'),
    'Simulation_simulate': Operation('POST', '/v1/simulate', 'SimulateRequest', 'SimulationResponse'),
    'Triggers_calibration': Operation('GET', '/v1/triggers/{id}/calibration', None, 'CalibrationResponse'),
    'Triggers_create': Operation('POST', '/v1/triggers', 'CreateTriggerDto', 'TriggerResponse'),
    'Triggers_delete': Operation('DELETE', '/v1/triggers/{id}', None, 'DeletedTriggerResponse'),
    'Triggers_evaluate': Operation('POST', '/v1/triggers/{id}/evaluate', 'FireTriggerDto', 'EvaluationResponse'),
    'Triggers_fire': Operation('POST', '/v1/triggers/{id}/fire', 'FireTriggerDto', 'FireResponse'),
    'Triggers_fires': Operation('GET', '/v1/triggers/{id}/fires', None, 'FireListResponse'),
    'Triggers_get': Operation('GET', '/v1/triggers/{id}', None, 'TriggerResponse'),
    'Triggers_list': Operation('GET', '/v1/triggers', None, 'TriggerListResponse'),
    'Triggers_reportOutcome': Operation('POST', '/v1/triggers/{id}/fires/{fireId}/outcome', 'ReportOutcomeDto', 'OutcomeResponse'),
    'Triggers_update': Operation('PATCH', '/v1/triggers/{id}', 'UpdateTriggerDto', 'TriggerResponse'),
    'WebhookOutbox_list': Operation('GET', '/v1/webhooks/deliveries', None, 'DeliveryListResponse'),
    'WebhookOutbox_redeliver': Operation('POST', '/v1/webhooks/deliveries/{id}/redeliver', None, 'DeliveryResponse'),
    'Webhooks_rotate': Operation('POST', '/v1/webhooks/signing-secret/rotate', None, 'RotatedSigningSecretResponse'),
    'Webhooks_signingSecret': Operation('GET', '/v1/webhooks/signing-secret', None, 'SigningSecretResponse'),
    'Webhooks_test': Operation('POST', '/v1/webhooks/test', 'WebhookTestRequest', 'WebhookTestResponse'),
}
