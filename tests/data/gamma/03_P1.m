Network 03_P1 {
Layer L03 {
Type: DSCONV
Dimensions { K: 1, C: 32, Y: 112, X: 112, R: 3, S: 3 }
Dataflow {
TemporalMap(3,3) S;
TemporalMap(1,1) C;
TemporalMap(38,38) Y';
SpatialMap(8,8) X';
TemporalMap(3,3) R;
Cluster(10,P);
TemporalMap(5,5) X';
SpatialMap(1,1) Y';
TemporalMap(1,1) C;
TemporalMap(3,3) S;
TemporalMap(3,3) R;
}
}
}
