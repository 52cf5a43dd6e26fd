package dev.idempotent.it.stacks;

import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Param;

/** A MyBatis mapper interface on {@link StackPayments}' table, found by MyBatis' own {@code @Mapper} scanning. */
@Mapper
public interface StackPaymentMapper {

	@Insert("INSERT INTO stack_payment (id, grp, idem_key, reference) VALUES (#{id}, #{group}, #{key}, #{reference})")
	int insert(@Param("id") String id, @Param("group") String group, @Param("key") String key,
			@Param("reference") String reference);

}
