import time
from typing import Any, Optional

from .._pagination import PagedList
from ..types import JobResponse, SubmittedJobResponse
from ._base import Options, Resource, body_of, operation, segment

#: Job states after which nothing changes.
FINISHED_JOB_STATES = frozenset({"succeeded", "failed", "cancelled"})


class JobWaitTimeoutError(Exception):
    """jobs.wait gave up before the job finished; `job` is its last known state."""

    def __init__(self, job: Any) -> None:
        super().__init__(f"Job {job.get('job_id')} is still {job.get('status')}: stopped waiting.")
        self.job = job


class Jobs(Resource):
    @operation("Jobs_submit")
    def create(self, *, request_options: Options = None, **fields: Any) -> SubmittedJobResponse:
        """POST /v1/jobs (`request`, `callback_url`): 202 `{job_id, poll_url, status}`; with `callback_url` a
        signed job.completed follows."""
        return self._transport.request("POST", "/v1/jobs", body=body_of(fields), options=request_options)

    @operation("Jobs_get")
    def get(self, job_id: str, *, request_options: Options = None) -> JobResponse:
        """GET /v1/jobs/{id}."""
        return self._transport.request("GET", f"/v1/jobs/{segment(job_id)}", options=request_options)

    @operation("Jobs_cancel")
    def cancel(self, job_id: str, *, request_options: Options = None) -> JobResponse:
        """DELETE /v1/jobs/{id}: cancels a queued or running job."""
        return self._transport.request("DELETE", f"/v1/jobs/{segment(job_id)}", options=request_options)

    @operation("Jobs_list")
    def list(
        self, *, limit: Optional[int] = None, cursor: Optional[str] = None, request_options: Options = None
    ) -> "PagedList[JobResponse]":
        """GET /v1/jobs: newest first, paged by cursor."""
        return PagedList(
            lambda next_cursor: self._transport.request(
                "GET", "/v1/jobs", query={"limit": limit, "cursor": next_cursor or cursor}, options=request_options
            ),
            "jobs",
        )

    def wait(
        self,
        job_id: str,
        *,
        poll_interval: float = 0.5,
        wait_timeout: float = 600.0,
        request_options: Options = None,
    ) -> JobResponse:
        """Polls the job (every `poll_interval` seconds) until it is succeeded, failed or cancelled, and returns it;
        raises JobWaitTimeoutError after `wait_timeout` seconds."""
        deadline = time.monotonic() + wait_timeout
        while True:
            job = self.get(job_id, request_options=request_options)
            if job.get("status") in FINISHED_JOB_STATES:
                return job
            if time.monotonic() + poll_interval > deadline:
                raise JobWaitTimeoutError(job)
            time.sleep(poll_interval)
