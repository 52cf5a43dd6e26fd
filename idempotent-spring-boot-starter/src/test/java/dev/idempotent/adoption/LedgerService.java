package dev.idempotent.adoption;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * An existing service that adopts the starter as docs/adopting.md describes: a Kafka listener writing with
 * JdbcTemplate, its own container factory and error handler, and Flyway migrations. {@link AdoptingDocTest} checks
 * that every snippet of docs/adopting.md is in these files, and {@link AdoptionIT} runs the service.
 */
@SpringBootApplication
public class LedgerService {

	public static void main(String[] args) {
		SpringApplication.run(LedgerService.class, args);
	}

}
