"""Tenants and what their admins configure: keys, rules, settings, tools, groups, skills, MCP servers, audit."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from ._http import Http, enc, network_retry, query_string
from .types import CreatedKey, RuleSet, Tenant


class Tenants:
    def __init__(self, http: Http) -> None:
        self._http = http

    def create(self, name: str) -> Tenant:
        """A new tenant (platform admin)."""
        return self._http.request("POST", "/v1/tenants", {"name": name})

    def create_key(self, tenant_id: str, role: str) -> CreatedKey:
        """A new key (``tenant_admin`` or ``agent``); its secret ``key`` is shown only in this answer."""
        return self._http.request("POST", f"/v1/tenants/{enc(tenant_id)}/keys", {"role": role})

    def list_keys(self, tenant_id: str) -> List[Dict[str, Any]]:
        """The tenant's keys, revoked ones included; never a secret."""
        return self._http.request("GET", f"/v1/tenants/{enc(tenant_id)}/keys")["keys"]

    def revoke_key(self, key_id: str) -> None:
        self._http.request("DELETE", f"/v1/keys/{enc(key_id)}")

    def set_rules(self, tenant_id: str, rules: RuleSet) -> RuleSet:
        return self._http.request("PUT", f"/v1/tenants/{enc(tenant_id)}/rules", rules)

    def get_rules(self, tenant_id: str) -> RuleSet:
        return self._http.request("GET", f"/v1/tenants/{enc(tenant_id)}/rules")

    def dry_run_rules(self, tenant_id: str, rules: RuleSet, limit: Optional[int] = None) -> Dict[str, Any]:
        """The tenant's recent calls decided again with ``rules``: those that would change. Nothing is saved (so it is retried)."""
        path = f"/v1/tenants/{enc(tenant_id)}/rules/dry-run" + query_string({"limit": limit})
        return self._http.request("POST", path, rules, after_network_error=network_retry("dryRunRules"))

    def get_settings(self, tenant_id: str) -> Dict[str, Any]:
        return self._http.request("GET", f"/v1/tenants/{enc(tenant_id)}/settings")

    def update_settings(self, tenant_id: str, **patch: Any) -> Dict[str, Any]:
        """A strict patch by the API's names: ``allowBypass``, ``agentsMayApprove``, ``workingDirectoryRoots``, …"""
        return self._http.request("PUT", f"/v1/tenants/{enc(tenant_id)}/settings", patch)

    def set_tools(self, tenant_id: str, tools: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
        """The tenant's external tools (run by your code: their calls wait ``awaiting_external``), replaced as a whole."""
        return self._http.request("PUT", f"/v1/tenants/{enc(tenant_id)}/tools", tools)

    def get_tools(self, tenant_id: str) -> List[Dict[str, Any]]:
        return self._http.request("GET", f"/v1/tenants/{enc(tenant_id)}/tools")

    def set_tool_groups(self, tenant_id: str, groups: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
        return self._http.request("PUT", f"/v1/tenants/{enc(tenant_id)}/tool-groups", groups)

    def get_tool_groups(self, tenant_id: str) -> List[Dict[str, Any]]:
        return self._http.request("GET", f"/v1/tenants/{enc(tenant_id)}/tool-groups")

    def upload_skill(self, tenant_id: str, upload: Dict[str, Any]) -> Dict[str, Any]:
        """A skill from its files (``SKILL.md`` and the rest, by relative path)."""
        return self._http.request("POST", f"/v1/tenants/{enc(tenant_id)}/skills", upload)

    def list_skills(self, tenant_id: str) -> List[Dict[str, Any]]:
        return self._http.request("GET", f"/v1/tenants/{enc(tenant_id)}/skills")["skills"]

    def delete_skill(self, tenant_id: str, name: str) -> None:
        self._http.request("DELETE", f"/v1/tenants/{enc(tenant_id)}/skills/{enc(name)}")

    def add_mcp_server(self, tenant_id: str, server: Dict[str, Any]) -> Dict[str, Any]:
        return self._http.request("POST", f"/v1/tenants/{enc(tenant_id)}/mcp-servers", server)

    def list_mcp_servers(self, tenant_id: str) -> List[Dict[str, Any]]:
        return self._http.request("GET", f"/v1/tenants/{enc(tenant_id)}/mcp-servers")["servers"]

    def delete_mcp_server(self, tenant_id: str, name: str) -> None:
        self._http.request("DELETE", f"/v1/tenants/{enc(tenant_id)}/mcp-servers/{enc(name)}")

    def audit(
        self,
        tenant_id: str,
        session_id: Optional[str] = None,
        job_id: Optional[str] = None,
        since: Optional[str] = None,
        limit: Optional[int] = None,
    ) -> Dict[str, Any]:
        """Audit entries, newest first: decisions, approvals, external results, attempts."""
        query = {"sessionId": session_id, "jobId": job_id, "since": since, "limit": limit}
        return self._http.request("GET", f"/v1/tenants/{enc(tenant_id)}/audit" + query_string(query))
