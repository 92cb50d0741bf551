package dev.ballast.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks API that works and is tested but whose shape may still change in a minor release: a
 * class, method, constructor or field so marked may be changed or removed without a deprecation
 * period. Each such change is listed in {@code CHANGELOG.md}, but the API compatibility check
 * does not hold it to the previous release.
 *
 * <p>Everything in a published module's public API that is marked neither {@code @Experimental}
 * nor {@link Internal} is held to source and binary compatibility with the last release by the
 * build's API check: a deliberate break is listed in the changelog, and never made in a patch
 * release.
 *
 * <p>On a class, the mark covers the class's members and nested classes. On a package (its
 * {@code package-info.java}), it covers every type of the package, and each public type carries
 * the mark as well, since tools read it from classes.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({
  ElementType.TYPE,
  ElementType.METHOD,
  ElementType.CONSTRUCTOR,
  ElementType.FIELD,
  ElementType.PACKAGE,
  ElementType.ANNOTATION_TYPE
})
public @interface Experimental {
  /**
   * What may still change and why, for the reader of the Javadoc; empty when the element's own
   * documentation says it.
   *
   * @return what may still change, or the empty string
   */
  String value() default "";
}
