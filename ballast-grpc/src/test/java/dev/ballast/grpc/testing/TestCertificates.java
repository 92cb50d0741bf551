package dev.ballast.grpc.testing;

import io.grpc.ChannelCredentials;
import io.grpc.ServerCredentials;
import io.grpc.TlsChannelCredentials;
import io.grpc.TlsServerCredentials;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Certificates made when a test runs, written as the PEM files a server's or a client's TLS
 * settings take: a certificate authority, and leaf certificates it signs for a server (localhost
 * and 127.0.0.1) or a client (named by a URI, such as a SPIFFE ID). No key is ever committed.
 * EC P-256 keys, valid from an hour ago for a day.
 */
public final class TestCertificates {
  private static final AtomicLong SERIAL = new AtomicLong(System.nanoTime());

  private TestCertificates() {}

  /** A certificate and its private key, as PEM files. */
  public record Issued(Path certificate, Path privateKey, X509Certificate x509) {}

  /** A certificate authority whose certificate is in {@link #certificate()}. */
  public static final class Authority {
    private final Path directory;
    private final X500Name name;
    private final KeyPair keys;
    private final Issued issued;

    private Authority(Path directory, String commonName) throws IOException, GeneralSecurityException {
      this.directory = directory;
      this.name = new X500Name("CN=" + commonName);
      this.keys = newKeys();
      X509v3CertificateBuilder builder = builder(name, name, keys);
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
      builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
      this.issued = write(directory, commonName, sign(builder, keys), keys);
    }

    /** The authority's own certificate, the trust anchor to give the other side. */
    public Path certificate() {
      return issued.certificate();
    }

    /** A server's certificate for localhost and 127.0.0.1. */
    public Issued server(String commonName) throws IOException, GeneralSecurityException {
      return leaf(commonName, new GeneralName(GeneralName.dNSName, "localhost"),
          new GeneralName(GeneralName.iPAddress, "127.0.0.1"));
    }

    /** A client's certificate naming it by {@code uri} (its identity to the server). */
    public Issued client(String commonName, String uri) throws IOException, GeneralSecurityException {
      return leaf(commonName, new GeneralName(GeneralName.uniformResourceIdentifier, uri));
    }

    private Issued leaf(String commonName, GeneralName... names) throws IOException, GeneralSecurityException {
      KeyPair leafKeys = newKeys();
      X509v3CertificateBuilder builder = builder(name, new X500Name("CN=" + commonName), leafKeys);
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
      builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
      builder.addExtension(Extension.extendedKeyUsage, false,
          new ExtendedKeyUsage(new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}));
      builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names));
      return write(directory, commonName, sign(builder, keys), leafKeys);
    }
  }

  /**
   * What a TLS test needs: an authority; a server's certificate for localhost; two clients it
   * signed, {@code spiffe://test/frontend} and {@code spiffe://test/batch}; and a stranger, named
   * {@code spiffe://test/frontend} too but signed by another authority.
   */
  public record Cast(Authority authority, Issued server, Issued frontend, Issued batch, Issued stranger) {
    public static Cast make(Path directory) throws IOException, GeneralSecurityException {
      Authority authority = TestCertificates.authority(directory, "test-ca");
      return new Cast(authority, authority.server("server"), authority.client("frontend", "spiffe://test/frontend"),
          authority.client("batch", "spiffe://test/batch"),
          TestCertificates.authority(Files.createDirectories(directory.resolve("other")), "another-ca").client("stranger", "spiffe://test/frontend"));
    }

    /** A client's TLS credentials: it trusts the authority, and shows {@code client}'s certificate (none if null). */
    public ChannelCredentials credentials(Issued client) throws IOException {
      TlsChannelCredentials.Builder tls = TlsChannelCredentials.newBuilder().trustManager(authority.certificate().toFile());
      if (client != null) {
        tls.keyManager(client.certificate().toFile(), client.privateKey().toFile());
      }
      return tls.build();
    }

    /** The server's mutual TLS credentials: its certificate, and only clients the authority signed. */
    public ServerCredentials mutualTls() throws IOException {
      return TlsServerCredentials.newBuilder()
          .keyManager(server.certificate().toFile(), server.privateKey().toFile())
          .trustManager(authority.certificate().toFile())
          .clientAuth(TlsServerCredentials.ClientAuth.REQUIRE)
          .build();
    }
  }

  /** A new certificate authority, its files in {@code directory}. */
  public static Authority authority(Path directory, String commonName) throws IOException, GeneralSecurityException {
    return new Authority(directory, commonName);
  }

  private static KeyPair newKeys() throws GeneralSecurityException {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(256);
    return generator.generateKeyPair();
  }

  private static X509v3CertificateBuilder builder(X500Name issuer, X500Name subject, KeyPair subjectKeys) {
    Instant now = Instant.now();
    return new JcaX509v3CertificateBuilder(issuer, BigInteger.valueOf(SERIAL.incrementAndGet()),
        Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(Duration.ofDays(1))), subject, subjectKeys.getPublic());
  }

  private static X509Certificate sign(X509v3CertificateBuilder builder, KeyPair issuerKeys) throws GeneralSecurityException {
    try {
      return new JcaX509CertificateConverter()
          .getCertificate(builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(issuerKeys.getPrivate())));
    } catch (OperatorCreationException e) {
      throw new GeneralSecurityException(e);
    }
  }

  private static Issued write(Path directory, String name, X509Certificate certificate, KeyPair keys)
      throws IOException, GeneralSecurityException {
    Path cert = directory.resolve(name + ".crt.pem");
    Path key = directory.resolve(name + ".key.pem");
    Files.writeString(cert, pem("CERTIFICATE", certificate.getEncoded()), StandardCharsets.US_ASCII);
    // The JDK encodes a private key as PKCS#8, the form gRPC's TLS credentials read.
    Files.writeString(key, pem("PRIVATE KEY", keys.getPrivate().getEncoded()), StandardCharsets.US_ASCII);
    return new Issued(cert, key, certificate);
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN " + type + "-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
        + "\n-----END " + type + "-----\n";
  }
}
