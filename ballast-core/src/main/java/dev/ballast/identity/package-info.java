/**
 * Who a caller is, as its TLS client certificate proves it ({@link
 * dev.ballast.identity.CertificateIdentity}): the name servers key leases, rate limits and
 * criticality trust on when mutual TLS is on.
 */
package dev.ballast.identity;
