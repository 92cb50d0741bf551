package dev.ballast.identity;

import java.security.cert.Certificate;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.List;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/**
 * The identity a caller proved with its TLS client certificate: the one name servers key a caller
 * on when mutual TLS is on (its leases on the quota server, its rate limit and its criticality on
 * a Ballast server), where a header or a request field would be whatever the caller chose to
 * write.
 *
 * <p>The identity is the certificate's first subject alternative name of type URI (a SPIFFE ID
 * such as {@code spiffe://prod/ns/web/sa/frontend}), else its first DNS name, else the common name
 * (CN) of its subject: the order in which service meshes and gRPC's own authorization read them.
 */
public final class CertificateIdentity {
  private static final int SAN_DNS = 2;
  private static final int SAN_URI = 6;

  private CertificateIdentity() {}

  /**
   * The identity of the peer of a TLS session, or null when there is no session or the peer
   * presented no certificate the handshake verified.
   *
   * @param session the TLS session, or null
   * @return the identity, or null
   */
  public static String of(SSLSession session) {
    if (session == null) {
      return null;
    }
    Certificate[] chain;
    try {
      chain = session.getPeerCertificates();
    } catch (SSLPeerUnverifiedException e) {
      return null;
    }
    return chain.length > 0 && chain[0] instanceof X509Certificate leaf ? of(leaf) : null;
  }

  /**
   * The identity a certificate names: its first URI name, else its first DNS name, else its
   * subject's CN.
   *
   * @param certificate the peer's leaf certificate
   * @return the identity, or null when it names none
   */
  public static String of(X509Certificate certificate) {
    String dns = null;
    try {
      Collection<List<?>> names = certificate.getSubjectAlternativeNames();
      if (names != null) {
        for (List<?> name : names) {
          int type = (Integer) name.get(0);
          if (type == SAN_URI) {
            return (String) name.get(1);
          }
          if (type == SAN_DNS && dns == null) {
            dns = (String) name.get(1);
          }
        }
      }
    } catch (CertificateParsingException e) {
      // A certificate whose extension does not parse names no one by it: fall back to the subject.
    }
    return dns != null ? dns : commonName(certificate);
  }

  private static String commonName(X509Certificate certificate) {
    try {
      List<Rdn> parts = new LdapName(certificate.getSubjectX500Principal().getName()).getRdns();
      // LdapName lists the most significant part first; the CN that names the subject is the last one.
      for (int i = parts.size() - 1; i >= 0; i--) {
        if ("CN".equalsIgnoreCase(parts.get(i).getType())) {
          return parts.get(i).getValue().toString();
        }
      }
    } catch (InvalidNameException e) {
      return null;
    }
    return null;
  }
}
