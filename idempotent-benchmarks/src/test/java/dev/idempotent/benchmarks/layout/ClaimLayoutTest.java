package dev.idempotent.benchmarks.layout;

import java.util.List;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The digest of the compact layout is the same computed in Java and in each database's SQL, for keys whose bytes
 * differ only where collations are lenient, and it tells apart pairs that concatenate to the same text.
 */
class ClaimLayoutTest {

	private static final List<String[]> KEYS = List.of(new String[] { "payments", "order-1" },
			new String[] { "payments", "Order-1" }, new String[] { "payments", "order-1 " },
			new String[] { "payments", "café" }, new String[] { "payments", "cafe\u0301" },
			new String[] { "payments", "💳-42" }, new String[] { "ab", "c" }, new String[] { "a", "bc" });

	@ParameterizedTest
	@ValueSource(strings = { "jdbc:mariadb://127.0.0.1:3306/test", "jdbc:postgresql://127.0.0.1:5432/test" })
	void javaAndSqlComputeTheSameDigest(String url) {
		boolean postgres = url.startsWith("jdbc:postgresql:");
		try (HikariDataSource dataSource = new HikariDataSource()) {
			dataSource.setJdbcUrl(url.replace("jdbc:mariadb:", "jdbc:mysql:"));
			dataSource.setUsername(postgres ? "postgres" : "root");
			JdbcTemplate jdbc = new JdbcTemplate(dataSource);
			for (String[] key : KEYS) {
				byte[] sql = jdbc.queryForObject("SELECT " + ClaimLayout.digestSql(postgres, "sc", "k")
						+ " FROM (SELECT ? AS sc, ? AS k) AS t", byte[].class, key[0], key[1]);
				assertThat(sql).as("%s/%s on %s", key[0], key[1], url).isEqualTo(ClaimLayout.digest(key[0], key[1]));
			}
		}
		assertThat(KEYS.stream().map((key) -> new java.math.BigInteger(1, ClaimLayout.digest(key[0], key[1]))).distinct())
			.hasSize(KEYS.size());
	}

}
