/**
 * Ballast's stability markers: {@link dev.ballast.annotation.Experimental} for API whose shape may
 * still change in a minor release, and {@link dev.ballast.annotation.Internal} for API that is
 * public only so that Ballast's modules can share it. What is marked by neither is held to
 * source and binary compatibility by the build's API check (docs/getting-started.md, "Stability").
 */
package dev.ballast.annotation;
