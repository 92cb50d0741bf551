/**
 * The quota service: a global rate limit per resource shared among clients with max-min fairness,
 * in leases. {@link dev.ballast.quota.QuotaService} allocates ({@link
 * dev.ballast.quota.MaxMinAllocator}), {@link dev.ballast.quota.QuotaServer} and {@link
 * dev.ballast.quota.QuotaServerMain} serve it over gRPC, and {@link dev.ballast.quota.QuotaClient}
 * holds a client's leases as {@link dev.ballast.quota.ResourceQuota}s, enforced locally by a token
 * bucket with no network call per request; {@link dev.ballast.quota.QuotaServerInterceptor}
 * applies one to a server's calls.
 */
package dev.ballast.quota;
