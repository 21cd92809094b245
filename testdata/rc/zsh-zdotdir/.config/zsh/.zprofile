export FROM_ZPROFILE=yes
