package dev.ballast.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks API that is public only so that Ballast's own modules can share it: applications must
 * not use it. It may change or disappear in any release, patch releases included, without a
 * changelog entry, and the API compatibility check ignores it.
 *
 * <p>The package {@code dev.ballast.internal} is internal as a whole.
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
public @interface Internal {}
