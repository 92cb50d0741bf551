/**
 * The quota fleet of docs/quota.md as code: its settings and timeline ({@code QuotaFleet}) and what
 * it recorded ({@code FleetRecord}), and replicas of the service in virtual time ({@code
 * VirtualTimeReplicas}). Shipped in ballast-quota's test-jar, so that the virtual-time
 * test, the replicated fleet of ballast-quota-zookeeper and the loopback measurement of
 * ballast-benchmarks all drive the very same fleet.
 */
package dev.ballast.quota.fleet;
