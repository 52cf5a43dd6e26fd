/**
 * The JDBC claim store: claim by INSERT against a UNIQUE index in the business database, SQL dialects,
 * recognition of duplicate and transient errors by SQLState and vendor code, and the shipped DDL.
 */
@NullMarked
package dev.idempotent.jdbc;

import org.jspecify.annotations.NullMarked;
